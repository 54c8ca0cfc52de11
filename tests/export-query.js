// tests/export-query.js - the SQL side of t-report-export.sh: DuckDB (npm
// package @duckdb/node-api) reads the tables mtrace-report --export wrote,
// with the column types docs/FORMAT.md gives them, answers the test's
// questions, copies every table to Parquet and answers them again from it.
//
// Usage: node export-query.js MODULE_DIR EXPORT_DIR PARQUET_DIR
// Prints one JSON object: {csv: ANSWERS, parquet: ANSWERS, rows: {...}}.
'use strict';
const fs = require('fs');
const path = require('path');
const [moduleDir, dir, pqDir] = process.argv.slice(2);
const { DuckDBInstance } = require(path.join(moduleDir, 'node_modules', '@duckdb', 'node-api'));

// "Table export, version 1" of docs/FORMAT.md; host and pid come from the path.
const schema = {
  calls: { tid: 'UINTEGER', seq: 'UBIGINT', ts_ns: 'UBIGINT', op: 'VARCHAR', size: 'UBIGINT',
           alignment: 'UBIGINT', ptr: 'UBIGINT', result: 'UBIGINT', usable: 'UBIGINT',
           stack_id: 'UBIGINT' },
  blocks: { ptr: 'UBIGINT', alloc_tid: 'UINTEGER', free_tid: 'UINTEGER', alloc_seq: 'UBIGINT',
            free_seq: 'UBIGINT', alloc_ts_ns: 'UBIGINT',
            free_ts_ns: 'UBIGINT', size: 'UBIGINT', usable: 'UBIGINT', stack_id: 'UBIGINT',
            alloc_op: 'VARCHAR', free_op: 'VARCHAR' },
  stacks: { stack_id: 'UBIGINT', depth: 'UINTEGER', function: 'VARCHAR', file: 'VARCHAR',
            line: 'UINTEGER', module: 'VARCHAR', build_id: 'VARCHAR', address: 'UBIGINT' },
  processes: { ppid: 'UINTEGER', exe: 'VARCHAR', build_id: 'VARCHAR', start_time_ns: 'UBIGINT',
               duration_ns: 'UBIGINT', allocator: 'VARCHAR', complete: 'BOOLEAN',
               stop_reason: 'VARCHAR', calls: 'UBIGINT', threads: 'UINTEGER', blocks: 'UBIGINT',
               stacks: 'UBIGINT' },
};

function sqlString(s) {
  return "'" + s.replace(/'/g, "''") + "'";
}

function csvSource(table) {
  const cols = Object.entries(schema[table]).map(([k, v]) => `${sqlString(k)}: ${sqlString(v)}`);
  return `read_csv(${sqlString(path.join(dir, table, '*', '*', '*.csv.gz'))}, header = true,
    hive_partitioning = true, hive_types = {'host': VARCHAR, 'pid': UINTEGER},
    columns = {${cols.join(', ')}})`;
}

function parquetSource(table) {
  return `read_parquet(${sqlString(path.join(pqDir, table, '*', '*', '*.parquet'))},
    hive_partitioning = true, hive_types = {'host': VARCHAR, 'pid': UINTEGER})`;
}

// The leak sites as mtrace-report --json ranks them, by function: the
// blocks never freed whose stack has a frame of the function.
const leaks = `
  SELECT b.host, b.pid, s.function, sum(b.size) AS bytes, count(*) AS blocks
  FROM blocks b
  JOIN (SELECT DISTINCT host, pid, stack_id, function FROM stacks WHERE function IS NOT NULL) s
    USING (host, pid, stack_id)
  WHERE b.free_op IS NULL
  GROUP BY ALL ORDER BY ALL`;
// The peak sites as mtrace-report --json ranks them: the blocks live just
// after the first record at which the live bytes were highest, records
// taken in the report's order (time, then threads in the order of their
// first record, then within a thread).
const peak = `
  WITH threads AS (
    SELECT host, pid, tid, row_number() OVER (PARTITION BY host, pid ORDER BY first_ts, tid) AS ord
    FROM (SELECT host, pid, tid, min(ts_ns) AS first_ts FROM calls GROUP BY host, pid, tid)),
  ranked AS (
    SELECT host, pid, tid, seq,
           row_number() OVER (PARTITION BY host, pid ORDER BY ts_ns, ord, seq) AS n
    FROM calls JOIN threads USING (host, pid, tid)),
  b AS (
    SELECT b.*, a.n AS alloc_n, f.n AS free_n FROM blocks b
    JOIN ranked a ON a.host = b.host AND a.pid = b.pid AND a.tid = b.alloc_tid AND a.seq = b.alloc_seq
    LEFT JOIN ranked f ON f.host = b.host AND f.pid = b.pid AND f.tid = b.free_tid AND f.seq = b.free_seq),
  deltas AS (
    SELECT host, pid, n, sum(d) AS d FROM (
      SELECT host, pid, alloc_n AS n, size::HUGEINT AS d FROM b
      UNION ALL SELECT host, pid, free_n, -size::HUGEINT FROM b WHERE free_n IS NOT NULL)
    GROUP BY ALL),
  running AS (
    SELECT host, pid, n, sum(d) OVER (PARTITION BY host, pid ORDER BY n) AS live FROM deltas),
  peaks AS (
    SELECT host, pid, min(n) AS peak_n FROM running r
    WHERE live = (SELECT max(live) FROM running m WHERE m.host = r.host AND m.pid = r.pid)
    GROUP BY ALL),
  at_peak AS (
    SELECT b.* FROM b JOIN peaks USING (host, pid)
    WHERE alloc_n <= peak_n AND (free_n IS NULL OR free_n > peak_n))
  SELECT p.host, p.pid, s.function, sum(p.size) AS bytes, count(*) AS blocks
  FROM at_peak p
  JOIN (SELECT DISTINCT host, pid, stack_id, function FROM stacks WHERE function IS NOT NULL) s
    USING (host, pid, stack_id)
  GROUP BY ALL ORDER BY ALL`;
// mtrace-dump --stats: the records of each thread.
const threads = `SELECT host, pid, tid, count(*) AS records FROM calls GROUP BY ALL ORDER BY ALL`;
const processes = `SELECT host, pid, calls, complete FROM processes ORDER BY ALL`;

async function answers(conn, source) {
  for (const table of Object.keys(schema))
    await conn.run(`CREATE OR REPLACE VIEW ${table} AS SELECT * FROM ${source(table)}`);
  const out = {};
  for (const [name, sql] of Object.entries({ leaks, peak, threads, processes }))
    out[name] = (await conn.runAndReadAll(sql)).getRowObjectsJson();
  return out;
}

(async () => {
  fs.mkdirSync(pqDir, { recursive: true });
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  const result = { csv: await answers(conn, csvSource), rows: {} };
  for (const table of Object.keys(schema)) {
    await conn.run(`COPY (SELECT * FROM ${csvSource(table)})
      TO ${sqlString(path.join(pqDir, table))} (FORMAT parquet, PARTITION_BY (host, pid))`);
    result.rows[table] = (await conn.runAndReadAll(`SELECT count(*) AS n FROM ${table}`))
      .getRowObjectsJson()[0].n;
  }
  result.parquet = await answers(conn, parquetSource);
  console.log(JSON.stringify(result));
})().catch((err) => {
  console.error(`export-query.js: ${err.message}`);
  process.exit(1);
});
