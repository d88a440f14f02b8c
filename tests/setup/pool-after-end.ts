// A pool used after its end() rejects with an error whose stack pg-pool rewrites from inside a
// microtask: it names no caller, and a dropped promise of that kind fails a run unexplained. Here the
// message carries the stack of the call itself (with its async frames; pg-pool would overwrite the
// error's own stack), so the report names the code.
import pg from "pg";

const marked = Symbol.for("inlay.test.poolAfterEnd");
const proto = pg.Pool.prototype as pg.Pool & { [marked]?: true; ending?: boolean };

if (!proto[marked]) {
  proto[marked] = true;
  const connect = proto.connect as (this: pg.Pool & { ending?: boolean }, cb?: (...args: unknown[]) => void) => unknown;
  proto.connect = function (this: pg.Pool & { ending?: boolean }, cb?: (...args: unknown[]) => void) {
    if (this.ending) {
      const caller = (new Error().stack ?? "").split("\n").slice(2, 14).join("\n");
      const error = new Error(`Cannot use a pool after calling end on the pool; called\n${caller}`);
      if (cb) return cb(error);
      return Promise.reject(error);
    }
    return connect.call(this, cb);
  } as typeof proto.connect;
}
