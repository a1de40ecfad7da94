#!/usr/bin/env python3
"""The core card in DuckDB or polars, for the coursekit card benchmark.

    python card_engines.py duckdb|polars TRACE [SLOS_MS]

Computes what card_ref.py computes (attempts, requests, denominators,
nearest-rank P50/P90/P95/P99 of success TTFT, E2E and event intervals,
qualified attempts at each SLO) the way an engineer would with each
engine: the JSON Lines read with an explicit schema (the header line, whose
keys differ, reads as a row of nulls and is filtered out; its window is
read separately), nearest rank as the ceil(p*n)-th value, not the engines'
interpolating quantiles. Prints the same JSON object as card_ref.py.

Neither engine is asked to validate the trace or to look for duplicate
attempt ids, which coursekit card does: the comparison favours them.
"""
import json
import sys

LEVELS = (50, 90, 95, 99)


def rank(n, p):
    """0-based index of the ceil(p*n)-th smallest, in integers (metrics.NearestRankIndex)."""
    k = (round(p * 1_000_000) * n + 999_999) // 1_000_000
    return min(max(k, 1), n) - 1


def header(path):
    with open(path, "rb") as f:
        h = json.loads(f.readline())
    return h["window"]["start_ms"], h["window"]["end_ms"]


def duckdb_card(path, w0, w1, slos):
    import duckdb

    con = duckdb.connect()
    src = (f"read_json('{path}', format='newline_delimited', columns={{attempt: 'VARCHAR', request: 'VARCHAR', "
           "start_ms: 'DOUBLE', outcome: 'VARCHAR', events: 'STRUCT(t_ms DOUBLE)[]', end_ms: 'DOUBLE', quality: 'VARCHAR'})")
    con.execute(f"CREATE TEMP TABLE a AS SELECT * FROM {src} WHERE attempt IS NOT NULL")
    counts = con.execute(f"""
        SELECT count(*) FILTER (WHERE start_ms >= {w0} AND start_ms < {w1}),
               count(DISTINCT coalesce(request, attempt)) FILTER (WHERE start_ms >= {w0} AND start_ms < {w1}),
               count(*) FILTER (WHERE start_ms >= {w0} AND start_ms < {w1} AND outcome = 'ok'),
               count(*) FILTER (WHERE start_ms >= {w0} AND start_ms < {w1} AND outcome = 'in_flight'),
               count(*) FILTER (WHERE NOT (start_ms >= {w0} AND start_ms < {w1}))
        FROM a""").fetchone()
    attempts, requests, complete, in_flight, outside = counts
    con.execute(f"""CREATE TEMP TABLE ok AS
        SELECT events[1].t_ms - start_ms AS ttft, end_ms - start_ms AS e2e, events, quality
        FROM a WHERE start_ms >= {w0} AND start_ms < {w1} AND outcome = 'ok'""")

    def dist(values_sql):
        n = con.execute(f"SELECT count(*) FROM ({values_sql})").fetchone()[0]
        if n == 0:
            return {"n": 0, **{f"p{p}": None for p in LEVELS}}
        ranks = [rank(n, p / 100) + 1 for p in LEVELS]
        rows = dict(con.execute(f"""
            SELECT r, v FROM (SELECT v, row_number() OVER (ORDER BY v) AS r FROM ({values_sql}))
            WHERE r IN ({', '.join(map(str, ranks))})""").fetchall())
        return {"n": n, **{f"p{p}": rows[r] for p, r in zip(LEVELS, ranks)}}

    out_dists = {
        "ttft_ms": dist("SELECT ttft AS v FROM ok"),
        "e2e_ms": dist("SELECT e2e AS v FROM ok"),
        "itl_ms": dist("SELECT unnest(list_transform(range(1, len(events)), lambda i: events[i + 1].t_ms - events[i].t_ms)) AS v FROM ok"),
    }
    conds = []
    for slo in slos:
        q = con.execute(f"SELECT count(*) FROM ok WHERE quality = 'pass' AND ttft <= {slo}").fetchone()[0]
        conds.append({"slo_ttft_ms": slo, "qualified": q})
    return attempts, requests, complete, in_flight, outside, out_dists, conds


def polars_card(path, w0, w1, slos):
    import polars as pl

    schema = {"attempt": pl.String, "request": pl.String, "start_ms": pl.Float64, "outcome": pl.String,
              "events": pl.List(pl.Struct({"t_ms": pl.Float64})), "end_ms": pl.Float64, "quality": pl.String}
    a = pl.scan_ndjson(path, schema=schema).filter(pl.col("attempt").is_not_null()).collect()
    inw = (pl.col("start_ms") >= w0) & (pl.col("start_ms") < w1)
    w = a.filter(inw)
    outside = a.height - w.height
    requests = w.select(pl.coalesce("request", "attempt").n_unique()).item()
    in_flight = w.filter(pl.col("outcome") == "in_flight").height
    t = w.filter(pl.col("outcome") == "ok").with_columns(
        (pl.col("events").list.first().struct.field("t_ms") - pl.col("start_ms")).alias("ttft"),
        (pl.col("end_ms") - pl.col("start_ms")).alias("e2e"))

    def dist(s):
        s = s.sort()
        n = s.len()
        if n == 0:
            return {"n": 0, **{f"p{p}": None for p in LEVELS}}
        return {"n": n, **{f"p{p}": s[rank(n, p / 100)] for p in LEVELS}}

    itl = t.select(pl.col("events").list.eval(pl.element().struct.field("t_ms").diff().slice(1)).explode().alias("v"))["v"].drop_nulls()
    out_dists = {"ttft_ms": dist(t["ttft"]), "e2e_ms": dist(t["e2e"]), "itl_ms": dist(itl)}
    conds = [{"slo_ttft_ms": slo, "qualified": t.filter((pl.col("quality") == "pass") & (pl.col("ttft") <= slo)).height}
             for slo in slos]
    return w.height, requests, t.height, in_flight, outside, out_dists, conds


def main():
    engine, path = sys.argv[1], sys.argv[2]
    slos = [float(s) for s in sys.argv[3].split(",")] if len(sys.argv) > 3 else [1000.0]
    w0, w1 = header(path)
    card = {"duckdb": duckdb_card, "polars": polars_card}[engine]
    attempts, requests, complete, in_flight, outside, dists, conds = card(path, w0, w1, slos)
    window_s = (w1 - w0) / 1000
    for c in conds:
        c["goodput_per_s"] = c["qualified"] / window_s
    out = {"attempts": attempts, "requests": requests, "complete_successes": complete,
           "failures": attempts - complete - in_flight, "in_flight": in_flight, "outside_window": outside,
           **dists, "conditions": conds}
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
