"""The chat page in a real browser: headless Chromium (Debian's chromium and
chromium-driver) driven by Selenium against a ck-server with SmolLM2. Types
a message, sees the streamed answer and its speed; starts a long answer and
stops it with the Stop button, after which the server has no busy slot.
--screenshot PATH saves the page after the first answer."""
import argparse
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(__file__))
from server_process import CkServer, metrics  # noqa: E402


def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,700"):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--screenshot")
    args = ap.parse_args()
    failures = []
    # --temp 0: the page sends no sampling fields, so the server's default makes the answer determined.
    with CkServer("-np", "2", "-c", "4096", "--temp", "0") as server:
        driver = browser()
        try:
            driver.get(server.url + "/")
            wait = WebDriverWait(driver, 120)
            wait.until(lambda d: d.find_element(By.ID, "model").text == "SmolLM2-135M-Instruct.Q4_1")
            box = driver.find_element(By.ID, "input")
            # A question whose answer is no near tie (openai_client_test.py).
            box.send_keys("Name the capital of France.")
            box.send_keys(Keys.ENTER)
            wait.until(lambda d: "t/s" in d.find_element(By.ID, "stats").text)
            answer = driver.find_elements(By.CSS_SELECTOR, ".msg.assistant")[-1].text
            stats = driver.find_element(By.ID, "stats").text
            print(f"answer: {answer!r}; stats: {stats!r}")
            if "Paris" not in answer:
                failures.append(f"the answer {answer!r} does not name Paris")
            if args.screenshot:
                driver.save_screenshot(args.screenshot)
            # A second turn sends the conversation again: the prompt cache finds it.
            box.send_keys("Write a very long story about a dragon who loves the sea.")
            box.send_keys(Keys.ENTER)
            wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".msg.assistant")[-1].text) > 20)
            driver.find_element(By.ID, "stop").click()
            wait.until(lambda d: d.find_element(By.ID, "send").is_enabled())
            deadline = time.time() + 20
            while metrics(server.url)["ck_server_slots_busy"] != 0 and time.time() < deadline:
                time.sleep(0.2)
            m = metrics(server.url)
            print(f"after Stop: slots busy {m['ck_server_slots_busy']:.0f}, cancelled "
                  f"{m['ck_server_requests_cancelled_total']:.0f}, cached prompt tokens "
                  f"{m['ck_server_prompt_tokens_cached_total']:.0f}")
            if m["ck_server_slots_busy"] != 0:
                failures.append("a slot stayed busy after Stop")
            if m["ck_server_requests_cancelled_total"] < 1:
                failures.append("Stop did not cancel the request")
            if m["ck_server_prompt_tokens_cached_total"] < 10:
                failures.append("the second turn did not reuse the first turn's tokens")
        finally:
            driver.quit()
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
