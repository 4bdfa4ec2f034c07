"""scripts/serve-cluster on loopback: 3 ck-server replicas (stories260K)
behind HAProxy. Clients send requests through HAProxy, retrying a failed
one (connection reset, a response cut off, 502, 503) up to 3 times; one replica is killed
(SIGKILL) mid-test. Every request must end answered (200) or refused (429),
within the time limit; the surviving replicas end with no busy slot; the
conversation header keeps a conversation on one replica (its prompt cache
hits)."""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from server_process import metrics  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def free_base_port():
    """A port P with P .. P+3 free on loopback (checked, then released)."""
    for _ in range(50):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + 3 > 65535:
            continue
        try:
            socks = []
            for p in range(base, base + 4):
                s = socket.socket()
                s.bind(("127.0.0.1", p))
                socks.append(s)
            for s in socks:
                s.close()
            return base
        except OSError:
            for s in socks:
                s.close()
    raise RuntimeError("no 4 consecutive free ports")


def post(port, body, headers=None, timeout=30):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/v1/completions", json.dumps(body), {"Content-Type": "application/json", **(headers or {})})
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def healthy(port):
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", "/health")
        return conn.getresponse().status == 200
    except OSError:
        return False


def main():
    shared = os.environ.get("CK_SHARED_DATA", os.path.join(ROOT, "..", "shared", "data"))
    model = os.path.join(shared, "models", "stories260K.gguf")
    base = free_base_port()
    bump_dir = subprocess.check_output(["mktemp", "-d"], text=True).strip()
    cluster = subprocess.Popen([os.path.join(ROOT, "scripts", "serve-cluster"), "3", "--port", str(base), "--",
                                "-m", model, "--bump-dir", bump_dir, "-np", "2", "-t", "1", "--max-queue", "8"],
                               env={**os.environ, "CK_SERVER": os.environ["CK_SERVER"]},
                               stderr=subprocess.DEVNULL, start_new_session=True)
    failures = []
    try:
        deadline = time.time() + 60
        while not all(healthy(base + i) for i in range(4)):
            if time.time() > deadline or cluster.poll() is not None:
                raise RuntimeError("the cluster did not come up")
            time.sleep(0.2)
        # Affinity: two turns of one conversation land on the same replica (its cache hits).
        conv = {"X-Conversation-Id": "conv-42"}
        text = "Once upon a time there was a little girl named Lily"
        post(base, {"prompt": text, "max_tokens": 8, "temperature": 0}, conv)
        status, body = post(base, {"prompt": text + " and", "max_tokens": 8, "temperature": 0}, conv)
        cached = json.loads(body)["usage"]["prompt_tokens_details"]["cached_tokens"]
        if cached < 10:
            failures.append(f"the second turn of a conversation reused {cached} cached tokens: no affinity")

        victim = subprocess.check_output(["pgrep", "-f", "--", f"ck-server --host 127.0.0.1 --port {base + 2} "], text=True).split()[0]
        outcomes, lock = [], threading.Lock()

        def client(c):
            for k in range(20):
                body = {"prompt": "Once upon a time", "max_tokens": 64, "ignore_eos": True, "seed": c * 100 + k}
                result = "gave up"
                for _ in range(3):
                    try:
                        status, _ = post(base, body, {"X-Conversation-Id": f"c{c}-{k}"})
                    except (OSError, http.client.HTTPException):  # cut off by the kill: retry
                        continue
                    if status in (200, 429):
                        result = status
                        break
                with lock:
                    outcomes.append(result)

        t0 = time.time()
        threads = [threading.Thread(target=client, args=(c,)) for c in range(6)]
        for t in threads:
            t.start()
        while len(outcomes) < 40 and time.time() - t0 < 60:
            time.sleep(0.01)
        os.kill(int(victim), signal.SIGKILL)
        killed_at = len(outcomes)
        for t in threads:
            t.join(max(1, 120 - (time.time() - t0)))
        elapsed = time.time() - t0
        counts = {str(k): outcomes.count(k) for k in set(outcomes)}
        print(f"{len(outcomes)} requests in {elapsed:.1f} s, replica 2 killed after {killed_at}: {counts}")
        if any(t.is_alive() for t in threads):
            failures.append("clients still waiting after 120 s")
        if len(outcomes) != 120 or any(o not in (200, 429) for o in outcomes):
            failures.append(f"not every request was answered or refused: {counts}")
        for i in (1, 3):
            m = metrics(f"http://127.0.0.1:{base + i}")
            if m["ck_server_slots_busy"] != 0:
                failures.append(f"replica {i} has a busy slot after the test")
    finally:
        os.killpg(cluster.pid, signal.SIGTERM)
        try:
            cluster.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(cluster.pid, signal.SIGKILL)
            failures.append("serve-cluster did not stop within 30 s of SIGTERM")
        subprocess.run(["rm", "-rf", bump_dir])
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
