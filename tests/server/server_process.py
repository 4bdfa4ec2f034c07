"""A ck-server started for a test: on a free loopback port (--port 0, the
port read from its "listening on" line), stopped with SIGTERM (it drains,
then exits 0)."""
import os
import re
import signal
import subprocess
import threading
import time


class CkServer:
    def __init__(self, *args, model=None):
        exe = os.environ["CK_SERVER"]
        model = model or os.environ["CK_SERVER_MODEL"]
        if not os.path.exists(model):
            raise RuntimeError(f"missing model {model} (scripts/fetch-models.sh)")
        cmd = [exe, "-m", model, "--host", "127.0.0.1", "--port", "0", *args]
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        self.log = []
        listening = threading.Event()
        self.port = None

        def drain():
            for line in self.proc.stderr:
                self.log.append(line)
                m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
                if m:
                    self.port = int(m.group(1))
                    listening.set()

        self._reader = threading.Thread(target=drain, daemon=True)
        self._reader.start()
        deadline = time.time() + 120
        while not listening.wait(0.1):
            if self.proc.poll() is not None or time.time() > deadline:
                self.proc.kill()
                raise RuntimeError("ck-server did not start:\n" + "".join(self.log))
        self.url = f"http://127.0.0.1:{self.port}"

    def rss_bytes(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self, timeout=60):
        """SIGTERM; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise RuntimeError("ck-server did not exit within %d s of SIGTERM:\n%s" % (timeout, "".join(self.log)))
        self._reader.join(5)
        return code

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def metrics(url, key=None):
    """GET /metrics as {name: value} (labelled series keep their labels in the name)."""
    import urllib.request

    out = {}
    req = urllib.request.Request(url + "/metrics", headers={"Authorization": f"Bearer {key}"} if key else {})
    with urllib.request.urlopen(req, timeout=10) as r:
        for line in r.read().decode().splitlines():
            if line and not line.startswith("#"):
                name, value = line.rsplit(" ", 1)
                out[name] = float(value)
    return out
