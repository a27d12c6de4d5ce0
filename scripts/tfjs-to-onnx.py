#!/usr/bin/env python3
"""Converts a TF.js graph model (model.json + weight shards) into an ONNX model.

No TF.js-to-ONNX converter installs offline here, so this one builds ONNX nodes straight from the
TF.js graph nodes and weights. It covers the ops the BlazePose detector and landmark graphs use
(fused convolutions, depthwise convolutions, pads, adds, activations, pooling, bilinear resizes,
depth-to-space, concatenation and the batch-size reshapes, whose shape arithmetic is folded
statically for batch 1). Anything else fails loudly instead of converting wrongly.

TF.js graphs are NHWC; ONNX convolutions are NCHW. The input is transposed once to NCHW, every
spatial op runs NCHW, and a tensor is transposed back to NHWC only where the layout is observable
(a reshape, or a graph output), so the outputs match the TF.js graph element for element.

Weights stored as float16 in the TF.js shards stay float16 in the ONNX file (a Cast node widens
them; onnxruntime folds it at load), so the file is no larger than the source.

Usage (Debian: apt-get install -y python3-onnx python3-numpy):
  /usr/bin/python3 scripts/tfjs-to-onnx.py MODEL.json OUT.onnx [--outputs name,name]
Only the requested signature outputs (default: all) and the nodes they need are converted.
"""
import argparse
import base64
import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
NHWC_TO_NCHW = [0, 3, 1, 2]
NCHW_TO_NHWC = [0, 2, 3, 1]
AXIS_NHWC_TO_NCHW = {0: 0, 1: 2, 2: 3, 3: 1}


def load_weights(model_dir, manifest):
    """All weights of a TF.js manifest as float32/int32 numpy arrays, dequantized."""
    weights = {}
    for group in manifest:
        buf = b"".join(open(os.path.join(model_dir, p), "rb").read() for p in group["paths"])
        off = 0
        for w in group["weights"]:
            shape = [int(d) for d in w["shape"]]
            n = int(np.prod(shape)) if shape else 1
            q = w.get("quantization")
            if q:
                qd = q["dtype"]
                if qd == "float16":
                    arr = np.frombuffer(buf, np.float16, n, off).astype(np.float32)
                    off += n * 2
                elif qd in ("uint8", "uint16"):
                    dt = np.uint8 if qd == "uint8" else np.uint16
                    raw = np.frombuffer(buf, dt, n, off).astype(np.float32)
                    off += n * np.dtype(dt).itemsize
                    arr = raw * q["scale"] + q["min"]
                else:
                    raise ValueError(f"unsupported quantization {qd} for {w['name']}")
            else:
                dt = {"float32": np.float32, "int32": np.int32}[w["dtype"]]
                arr = np.frombuffer(buf, dt, n, off).copy()
                off += n * 4
            weights[w["name"]] = arr.reshape(shape)
    return weights


def attr_s(node, key, default=None):
    a = node.get("attr", {}).get(key)
    return base64.b64decode(a["s"]).decode() if a and "s" in a else default


def attr_ints(node, key, default=None):
    a = node.get("attr", {}).get(key)
    return [int(i) for i in a["list"].get("i", [])] if a and "list" in a else default


def attr_i(node, key, default=0):
    a = node.get("attr", {}).get(key)
    return int(a["i"]) if a and "i" in a else default


def attr_b(node, key, default=False):
    a = node.get("attr", {}).get(key)
    return bool(a.get("b", False)) if a else default


def fused_ops(node):
    a = node.get("attr", {}).get("fused_ops")
    return [base64.b64decode(s).decode() for s in a["list"].get("s", [])] if a else []


class Tensor:
    """A converted value: its ONNX name, whether it is stored NCHW, and its logical (TF) shape."""

    def __init__(self, name, nchw, shape):
        self.name, self.nchw, self.shape = name, nchw, list(shape)


class Converter:
    def __init__(self, model_json):
        self.dir = os.path.dirname(os.path.abspath(model_json))
        self.model = json.load(open(model_json))
        self.nodes = {n["name"]: n for n in self.model["modelTopology"]["node"]}
        self.weights = load_weights(self.dir, self.model["weightsManifest"])
        self.onnx_nodes, self.initializers, self.inputs = [], [], []
        self.values = {}  # TF node name -> Tensor, or numpy array for constants
        self.uid = 0

    # ---- helpers ---------------------------------------------------------------------------
    def fresh(self, base):
        self.uid += 1
        return f"{base.split('/')[-1]}_{self.uid}"

    def init(self, arr, base, keep_fp16=False):
        """A constant as an initializer; float weights exactly representable in float16 are stored
        as float16 plus a Cast, halving the file without changing a value."""
        name = self.fresh(base)
        if arr.dtype == np.float32 and keep_fp16 and np.array_equal(arr.astype(np.float16).astype(np.float32), arr):
            self.initializers.append(numpy_helper.from_array(arr.astype(np.float16), name + "_fp16"))
            self.onnx_nodes.append(helper.make_node("Cast", [name + "_fp16"], [name], to=TensorProto.FLOAT))
        else:
            self.initializers.append(numpy_helper.from_array(arr, name))
        return name

    def add(self, op, inputs, base, **attrs):
        out = self.fresh(base)
        self.onnx_nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def as_plain(self, t):
        """The tensor in TF's own (NHWC) memory layout."""
        if not t.nchw:
            return t
        return Tensor(self.add("Transpose", [t.name], t.name + "_nhwc", perm=NCHW_TO_NHWC), False, t.shape)

    def input_name(self, ref):
        ref = ref.lstrip("^")
        if ":" in ref:
            base, idx = ref.rsplit(":", 1)
            if idx != "0":
                raise ValueError(f"multi-output reference {ref} is not supported")
            ref = base
        return ref

    def value(self, ref):
        name = self.input_name(ref)
        if name not in self.values:
            self.convert(name)
        return self.values[name]

    def const(self, ref):
        v = self.value(ref)
        if not isinstance(v, np.ndarray):
            raise ValueError(f"{ref} must be a constant for static conversion")
        return v

    def activation(self, x, ops, base):
        for op in ops:
            if op == "BiasAdd":
                continue
            if op == "Relu":
                x = self.add("Relu", [x], base + "_relu")
            elif op == "Relu6":
                x = self.clip6(x, base)
            elif op == "Sigmoid":
                x = self.add("Sigmoid", [x], base + "_sigmoid")
            else:
                raise ValueError(f"unsupported fused op {op} in {base}")
        return x

    def clip6(self, x, base):
        lo = self.init(np.array(0, np.float32), "zero")
        hi = self.init(np.array(6, np.float32), "six")
        return self.add("Clip", [x, lo, hi], base + "_relu6")

    @staticmethod
    def same_pads(size, k, s, d):
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        return total // 2, total - total // 2, out

    def conv_geometry(self, node, x, kh, kw):
        strides = attr_ints(node, "strides", [1, 1, 1, 1])
        dil = attr_ints(node, "dilations", [1, 1, 1, 1])
        pad = attr_s(node, "padding", "VALID")
        _, H, W, _ = x.shape
        sh, sw, dh, dw = strides[1], strides[2], dil[1], dil[2]
        if pad == "SAME":
            t, b, oh = self.same_pads(H, kh, sh, dh)
            l, r, ow = self.same_pads(W, kw, sw, dw)
        elif pad == "VALID":
            t = b = l = r = 0
            oh = (H - (kh - 1) * dh - 1) // sh + 1
            ow = (W - (kw - 1) * dw - 1) // sw + 1
        else:
            raise ValueError(f"padding {pad} not supported in {node['name']}")
        return dict(strides=[sh, sw], dilations=[dh, dw], pads=[t, l, b, r]), oh, ow

    # ---- op conversion -------------------------------------------------------------------
    def convert(self, name):
        node = self.nodes[name]
        op = node["op"]
        ins = [i for i in node.get("input", []) if not i.startswith("^")]
        base = name.replace("StatefulPartitionedCall/model/", "")
        if op == "Const":
            self.values[name] = self.weights[name]
        elif op == "Placeholder":
            dims = [int(d.get("size", -1)) for d in node["attr"]["shape"]["shape"]["dim"]]
            dims = [1 if d < 0 else d for d in dims]
            onnx_name = base
            self.inputs.append(helper.make_tensor_value_info(onnx_name, TensorProto.FLOAT, dims))
            t = Tensor(onnx_name, False, dims)
            if len(dims) == 4:
                t = Tensor(self.add("Transpose", [onnx_name], base + "_nchw", perm=NHWC_TO_NCHW), True, dims)
            self.values[name] = t
        elif op == "Identity":
            self.values[name] = self.value(ins[0])
        elif op in ("Conv2D", "_FusedConv2D"):
            x = self.value(ins[0])
            w = self.const(ins[1])  # HWIO
            kh, kw, ci, co = w.shape
            geo, oh, ow = self.conv_geometry(node, x, kh, kw)
            args = [x.name, self.init(np.ascontiguousarray(w.transpose(3, 2, 0, 1)), base + "_w", True)]
            ops = fused_ops(node) if op == "_FusedConv2D" else []
            if op == "_FusedConv2D":
                if not ops or ops[0] != "BiasAdd" or attr_i(node, "num_args", 1) != 1:
                    raise ValueError(f"unsupported fused conv {ops} in {name}")
                args.append(self.init(self.const(ins[2]), base + "_b", True))
            y = self.add("Conv", args, base, kernel_shape=[kh, kw], **geo)
            self.values[name] = Tensor(self.activation(y, ops, base), True, [1, oh, ow, co])
        elif op in ("DepthwiseConv2dNative", "FusedDepthwiseConv2dNative"):
            x = self.value(ins[0])
            w = self.const(ins[1])  # [kh, kw, C, M]; TF orders output channels c * M + m
            kh, kw, c, m = w.shape
            geo, oh, ow = self.conv_geometry(node, x, kh, kw)
            wk = np.ascontiguousarray(w.transpose(2, 3, 0, 1).reshape(c * m, 1, kh, kw))
            args = [x.name, self.init(wk, base + "_w", True)]
            ops = fused_ops(node) if op.startswith("Fused") else []
            if ops:
                if ops[0] != "BiasAdd":
                    raise ValueError(f"unsupported fused depthwise {ops} in {name}")
                args.append(self.init(self.const(ins[2]), base + "_b", True))
            y = self.add("Conv", args, base, kernel_shape=[kh, kw], group=c, **geo)
            self.values[name] = Tensor(self.activation(y, ops, base), True, [1, oh, ow, c * m])
        elif op in ("AddV2", "Add", "Mul", "Sub"):
            a, b = self.value(ins[0]), self.value(ins[1])
            if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
                raise ValueError(f"{op} with a constant operand is not supported ({name})")
            if a.nchw != b.nchw or a.shape != b.shape:
                raise ValueError(f"{op} operands differ in layout/shape ({name})")
            onnx_op = {"AddV2": "Add", "Add": "Add", "Mul": "Mul", "Sub": "Sub"}[op]
            self.values[name] = Tensor(self.add(onnx_op, [a.name, b.name], base), a.nchw, a.shape)
        elif op in ("Relu", "Relu6", "Sigmoid"):
            x = self.value(ins[0])
            y = self.clip6(x.name, base) if op == "Relu6" else self.add(op, [x.name], base)
            self.values[name] = Tensor(y, x.nchw, x.shape)
        elif op == "Pad":
            x = self.value(ins[0])
            p = self.const(ins[1]).astype(np.int64)
            if x.nchw:
                p = p[NHWC_TO_NCHW]
            pads = self.init(np.concatenate([p[:, 0], p[:, 1]]).astype(np.int64), base + "_pads")
            shape = [d + int(a) + int(b) for d, (a, b) in zip(x.shape, self.const(ins[1]))]
            self.values[name] = Tensor(self.add("Pad", [x.name, pads], base, mode="constant"), x.nchw, shape)
        elif op == "MaxPool":
            x = self.value(ins[0])
            k = attr_ints(node, "ksize")
            geo, oh, ow = self.conv_geometry(node, x, k[1], k[2])
            del geo["dilations"]
            y = self.add("MaxPool", [x.name], base, kernel_shape=[k[1], k[2]], **geo)
            self.values[name] = Tensor(y, True, [1, oh, ow, x.shape[3]])
        elif op == "ResizeBilinear":
            x = self.value(ins[0])
            oh, ow = [int(v) for v in self.const(ins[1])]
            if attr_b(node, "align_corners"):
                mode = "align_corners"
            elif attr_b(node, "half_pixel_centers"):
                mode = "half_pixel"
            else:
                mode = "asymmetric"
            sizes = self.init(np.array([1, x.shape[3], oh, ow], np.int64), base + "_sizes")
            y = self.add("Resize", [x.name, "", "", sizes], base, mode="linear", coordinate_transformation_mode=mode)
            self.values[name] = Tensor(y, True, [1, oh, ow, x.shape[3]])
        elif op == "DepthToSpace":
            x = self.value(ins[0])
            bs = attr_i(node, "block_size")
            # TF's NHWC depth_to_space orders depth as (block row, block col, channel): ONNX DCR.
            y = self.add("DepthToSpace", [x.name], base, blocksize=bs, mode="DCR")
            self.values[name] = Tensor(y, True, [1, x.shape[1] * bs, x.shape[2] * bs, x.shape[3] // (bs * bs)])
        elif op == "ConcatV2":
            parts = [self.value(i) for i in ins[:-1]]
            axis = int(self.const(ins[-1]))
            if all(isinstance(p, np.ndarray) for p in parts):
                self.values[name] = np.concatenate(parts, axis)
                return
            rank = len(parts[0].shape)
            axis = axis % rank
            nchw = all(p.nchw for p in parts)
            if not nchw:
                parts = [self.as_plain(p) for p in parts]
            onnx_axis = AXIS_NHWC_TO_NCHW[axis] if nchw else axis
            shape = list(parts[0].shape)
            shape[axis] = sum(p.shape[axis] for p in parts)
            y = self.add("Concat", [p.name for p in parts], base, axis=onnx_axis)
            self.values[name] = Tensor(y, nchw, shape)
        elif op == "Shape":
            self.values[name] = np.array(self.value(ins[0]).shape, np.int32)
        elif op == "StridedSlice":
            self.values[name] = self.strided_slice(node, ins)
        elif op == "Pack":
            parts = [np.asarray(self.const(i)) for i in ins]
            self.values[name] = np.stack(parts, attr_i(node, "axis"))
        elif op == "Reshape":
            x = self.as_plain(self.value(ins[0]))
            shape = [int(v) for v in self.const(ins[1])]
            total = int(np.prod(x.shape))
            if -1 in shape:
                known = int(np.prod([d for d in shape if d != -1]))
                shape[shape.index(-1)] = total // known
            s = self.init(np.array(shape, np.int64), base + "_shape")
            self.values[name] = Tensor(self.add("Reshape", [x.name, s], base), False, shape)
        else:
            raise ValueError(f"unsupported op {op} ({name})")

    def strided_slice(self, node, ins):
        x = np.asarray(self.const(ins[0]))
        begin, end, strides = (np.asarray(self.const(i)).tolist() for i in ins[1:4])
        bm, em, sm = attr_i(node, "begin_mask"), attr_i(node, "end_mask"), attr_i(node, "shrink_axis_mask")
        if attr_i(node, "ellipsis_mask") or attr_i(node, "new_axis_mask"):
            raise ValueError(f"ellipsis/new-axis strided slice not supported ({node['name']})")
        idx = []
        for d in range(len(begin)):
            if sm & (1 << d):
                idx.append(begin[d])
            else:
                idx.append(slice(None if bm & (1 << d) else begin[d], None if em & (1 << d) else end[d], strides[d]))
        return np.asarray(x[tuple(idx)])

    def build(self, output_keys=None):
        sig = self.model["signature"]["outputs"]
        keys = output_keys or list(sig.keys())
        outputs = []
        for key in keys:
            t = self.value(sig[key]["name"])
            t = self.as_plain(t)
            out = self.add("Identity", [t.name], key)
            # Give the graph output the signature's key as its name.
            self.onnx_nodes[-1].output[0] = key
            outputs.append(helper.make_tensor_value_info(key, TensorProto.FLOAT, t.shape))
        graph = helper.make_graph(self.onnx_nodes, "tfjs_graph", self.inputs, outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                                  producer_name="rep-coach scripts/tfjs-to-onnx.py")
        onnx.checker.check_model(model)
        return model


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model_json")
    ap.add_argument("out_onnx")
    ap.add_argument("--outputs", help="comma-separated signature output keys to keep (default: all)")
    a = ap.parse_args()
    conv = Converter(a.model_json)
    keys = a.outputs.split(",") if a.outputs else None
    model = conv.build(keys)
    onnx.save(model, a.out_onnx)
    ops = sorted({n.op_type for n in model.graph.node})
    print(f"{a.out_onnx}: {len(model.graph.node)} nodes ({', '.join(ops)}), "
          f"inputs {[i.name for i in model.graph.input]}, outputs {[o.name for o in model.graph.output]}, "
          f"{os.path.getsize(a.out_onnx) / 1e6:.1f} MB", file=sys.stderr)


if __name__ == "__main__":
    main()
