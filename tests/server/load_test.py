"""A bounded load test of ck-server on loopback: N clients x M requests,
mixing streaming and whole responses, every fifth one disconnecting early
(a stream after its first event, a whole request right after sending it).
Every request must be answered 200 (with a complete answer) or refused 429
(queue full); afterwards /metrics must show no busy slot and nothing queued,
and the resident memory must be flat: not grown by more than --rss-growth-mib
over the whole test (the slots' KV cache pages are touched for the first time
in it), nor by more than --rss-growth-late-mib over its second half (by then
every slot and HTTP thread has run, so growth there is a leak).
Last, SIGTERM during a stream: the stream still ends (its slot's context
fills: "length", then [DONE]) and the server exits 0.
The model is stories260K (tiny: this tests the server, not the model)."""
import argparse
import http.client
import json
import os
import signal
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from server_process import CkServer, metrics  # noqa: E402

PROMPTS = ["Once upon a time", "The little dog", "Lily and Tom went to the park", "One day, a big bird"]


def one_request(port, i, results):
    stream = i % 2 == 0
    leave_early = i % 5 == 4
    body = json.dumps({"prompt": PROMPTS[i % len(PROMPTS)], "max_tokens": 24 + (i % 3) * 16, "stream": stream,
                       "temperature": 0.8, "seed": i})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        if leave_early and not stream:
            conn.request("POST", "/v1/completions", body, {"Content-Type": "application/json"})
            conn.close()  # gone before the answer
            results.append(("left", None))
            return
        conn.request("POST", "/v1/completions", body, {"Content-Type": "application/json"})
        r = conn.getresponse()
        if r.status != 200:
            payload = json.loads(r.read())
            results.append((r.status, payload["error"]["type"]))
            return
        if stream:
            events = []
            while True:
                line = r.fp.readline()
                if not line:
                    break
                line = line.decode().strip()
                if line.startswith("data: "):
                    events.append(line[6:])
                    if leave_early:
                        conn.close()
                        results.append(("left", None))
                        return
                    if line == "data: [DONE]":
                        break
            ok = events and events[-1] == "[DONE]" and json.loads(events[-2])["choices"][0]["finish_reason"]
            results.append((200, "complete" if ok else "truncated stream"))
        else:
            answer = json.loads(r.read())
            ok = answer["choices"][0]["finish_reason"] in ("stop", "length")
            results.append((200, "complete" if ok else "bad answer"))
    except Exception as e:  # noqa: BLE001 - any failure is a result to report
        results.append(("exception", repr(e)))
    finally:
        conn.close()


def drain_check(server):
    """SIGTERM while a stream runs: the stream still ends with [DONE]."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    body = json.dumps({"prompt": "Once upon a time", "max_tokens": 100000, "ignore_eos": True, "stream": True})
    conn.request("POST", "/v1/completions", body)
    r = conn.getresponse()
    lines = []  # raw lines: chunk sizes and the events
    while True:
        line = r.fp.readline()
        if not line:
            break
        lines.append(line.decode(errors="replace").strip())
        if len(lines) == 2:  # the first event: the stream is running
            server.proc.send_signal(signal.SIGTERM)
        if lines[-1] == "data: [DONE]":
            break
    conn.close()
    return len(lines) > 2 and lines[-1] == "data: [DONE]" and any('"finish_reason":"length"' in l for l in lines)


def client(port, c, n, results):
    for k in range(n):
        one_request(port, c * n + k, results)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--requests", type=int, default=50)
    ap.add_argument("--model", default=None)
    ap.add_argument("--time-limit", type=float, default=240)
    ap.add_argument("--rss-growth-mib", type=float, default=64)
    ap.add_argument("--rss-growth-late-mib", type=float, default=16)
    args = ap.parse_args()
    shared = os.environ.get("CK_SHARED_DATA", os.path.join(os.path.dirname(__file__), "../../../shared/data"))
    model = args.model or os.path.join(shared, "models", "stories260K.gguf")
    with tempfile.TemporaryDirectory() as bump_dir:
        # 4 slots, a queue of 4: 8 clients at once overflow it now and then (429).
        server = CkServer("-np", "4", "-c", "1024", "--max-queue", "4", "--bump-dir", bump_dir, "-t", "1", model=model)
        try:
            one_request(server.port, 0, [])  # warm up
            rss_before = server.rss_bytes()
            results = []
            rss_half = []  # RSS when half of the requests have their result

            def sample_half():
                while not rss_half and any(t.is_alive() for t in threads):
                    if len(results) >= args.clients * args.requests // 2:
                        rss_half.append(server.rss_bytes())
                    time.sleep(0.05)

            t0 = time.time()
            threads = [threading.Thread(target=client, args=(server.port, c, args.requests, results))
                       for c in range(args.clients)]
            for t in threads:
                t.start()
            sampler = threading.Thread(target=sample_half)
            sampler.start()
            for t in threads:
                t.join(max(1, args.time_limit - (time.time() - t0)))
            elapsed = time.time() - t0
            hung = sum(t.is_alive() for t in threads)
            sampler.join()
            # The scheduler notices a departed client at its next write: wait for it.
            deadline = time.time() + 30
            while True:
                m = metrics(server.url)
                if (m["ck_server_slots_busy"] == 0 and m["ck_server_requests_queued"] == 0) or time.time() > deadline:
                    break
                time.sleep(0.2)
            rss_after = server.rss_bytes()
            rss_half = rss_half[0] if rss_half else rss_after
            drained = drain_check(server)
        finally:
            code = server.stop()
    counts = {}
    for status, what in results:
        counts[(status, what)] = counts.get((status, what), 0) + 1
    print(f"{len(results)} requests in {elapsed:.1f} s: " + ", ".join(f"{s} {w}: {n}" for (s, w), n in sorted(
        counts.items(), key=str)))
    print(f"after: slots busy {m['ck_server_slots_busy']:.0f}, queued {m['ck_server_requests_queued']:.0f}, "
          f"cancelled {m['ck_server_requests_cancelled_total']:.0f}, finished {m['ck_server_requests_finished_total']:.0f}; "
          f"RSS {rss_before / 2**20:.1f} -> {rss_half / 2**20:.1f} (half of the requests done) -> "
          f"{rss_after / 2**20:.1f} MiB; stream at SIGTERM completed: {drained}; "
          f"exit code {code}")
    failures = []
    if hung:
        failures.append(f"{hung} clients still running after {args.time_limit} s")
    if len(results) != args.clients * args.requests:
        failures.append(f"{len(results)} results for {args.clients * args.requests} requests")
    bad = {k: n for k, n in counts.items() if k not in {(200, "complete"), (429, "rate_limit_error"), ("left", None)}}
    if bad:
        failures.append(f"unexpected outcomes: {bad}")
    if counts.get((200, "complete"), 0) == 0:
        failures.append("no request completed")
    if m["ck_server_slots_busy"] != 0 or m["ck_server_requests_queued"] != 0:
        failures.append("slots still busy or requests queued 30 s after the last client")
    if (rss_after - rss_before) / 2**20 > args.rss_growth_mib:
        failures.append(f"RSS grew by more than {args.rss_growth_mib} MiB")
    if (rss_after - rss_half) / 2**20 > args.rss_growth_late_mib:
        failures.append(f"RSS grew by more than {args.rss_growth_late_mib} MiB over the second half of the requests")
    if not drained:
        failures.append("a stream running at SIGTERM did not end with its finish reason and [DONE]")
    if code != 0:
        failures.append(f"ck-server exited with {code} on SIGTERM")
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
