// Prints the rows of an Arrow IPC file as JSON, one object per row,
// using the apache-arrow package: an Arrow reader that is not augur's.
import { readFileSync } from "node:fs";
import { tableFromIPC } from "apache-arrow";

function plain(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "bigint") return v.toString();
  if (typeof v !== "object") return v;
  if (v instanceof Map) {
    const o = {};
    for (const [k, x] of v) o[k] = plain(x);
    return o;
  }
  if (typeof v.toArray === "function" && typeof v.get === "function" && !(v.constructor && v.constructor.name === "StructRow")) {
    return Array.from(v.toArray(), plain);
  }
  if (typeof v.toJSON === "function") {
    const j = v.toJSON();
    if (Array.isArray(j)) return j.map(plain);
    const o = {};
    for (const k of Object.keys(j)) o[k] = plain(j[k]);
    return o;
  }
  return v;
}

const table = tableFromIPC(readFileSync(process.argv[2]));
const names = table.schema.fields.map((f) => f.name);
const out = [];
for (let i = 0; i < table.numRows; i++) {
  const row = {};
  for (const name of names) row[name] = plain(table.getChild(name).get(i));
  out.push(row);
}
process.stdout.write(JSON.stringify(out));
