// Prepared statements cached per connection: preparing costs more than running a point read, and
// these run on every request and every projected event.
import type Database from 'better-sqlite3';

const cache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

export function prepared<P extends unknown[] = unknown[], R = unknown>(db: Database.Database, sql: string): Database.Statement<P, R> {
  let byText = cache.get(db);
  if (!byText) cache.set(db, (byText = new Map()));
  let statement = byText.get(sql);
  if (!statement) byText.set(sql, (statement = db.prepare(sql)));
  return statement as unknown as Database.Statement<P, R>;
}
