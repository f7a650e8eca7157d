"""The memory inspector in a real browser: Debian's chromium (headless) through chromium-driver and selenium,
against a real ``nova-memory serve`` app (uvicorn) over a real store (SQLite, Chroma, MiniLM).

Skipped, with the reason, only when chromium or its driver is not installed (``.ci/run``
installs both). ``NOVA_MEMORY_UI_SCREENSHOTS=DIR`` saves the README's two screenshots there
(``timeline.png``, ``context.png``); ``docs/img/`` holds the committed ones.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from ui_seed import ADMIN_KEY, ALICE_KEY, BOB_SECRET, HOSTILE, KEYS, Seeded, seed

from nova_memory_integrations import NovaStore

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="needs Debian's chromium and chromium-driver: apt-get install -y chromium chromium-driver")
SCREENSHOTS = os.environ.get("NOVA_MEMORY_UI_SCREENSHOTS")
WAIT = 60


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,1000", "--no-first-run", "--disable-extensions"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    driver.set_page_load_timeout(180)
    yield driver
    driver.quit()


@pytest.fixture
def seeded(store: NovaStore) -> Seeded:
    return seed(store)


@pytest.fixture
def site(serve: Callable[..., Any], seeded: Seeded, browser: Any) -> Iterator[str]:
    """The server's base URL; the browser starts signed out."""
    srv = serve(api_keys=KEYS)
    browser.get(f"{srv.url}/ui/login")
    browser.delete_all_cookies()
    yield srv.url
    browser.delete_all_cookies()


def _wait(browser: Any, condition: Callable[[Any], Any]) -> Any:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    # a page that reloads after an action may swap an element between finding and reading it
    return WebDriverWait(browser, WAIT, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException)
                         ).until(condition)


def _sign_in(browser: Any, site: str, key: str) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{site}/ui")
    field = _wait(browser, lambda b: b.find_element(By.ID, "key"))
    field.send_keys(key)
    browser.find_element(By.CSS_SELECTOR, "#login-form button").click()
    _wait(browser, lambda b: not b.current_url.endswith("/login") and b.find_elements(By.TAG_NAME, "h1")
          and b.find_element(By.TAG_NAME, "h1").text != "Sign in")


def _texts(browser: Any, css: str) -> list[str]:
    from selenium.webdriver.common.by import By

    return [e.text for e in browser.find_elements(By.CSS_SELECTOR, css)]


def _slide(browser: Any, slider_id: str, when: datetime) -> None:
    """Move a slider as a user would end a drag: set the value, fire ``input`` then ``change``."""
    old = browser.current_url
    browser.execute_script(
        "const s = document.getElementById(arguments[0]); s.value = arguments[1];"
        "s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change'));",
        slider_id, int(when.timestamp()))
    _wait(browser, lambda b: b.current_url != old and b.execute_script("return document.readyState") == "complete")


def _save(browser: Any, name: str) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(Path(SCREENSHOTS) / name))


def test_timeline_sliders_episode_search_and_what_the_agent_sees(browser: Any, site: str, seeded: Seeded) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{site}/ui")
    assert browser.find_element(By.ID, "login-form") and "Lisbon" not in browser.page_source
    _sign_in(browser, site, ADMIN_KEY)
    assert {"alice", "bob"} <= set(_texts(browser, "#users td a"))
    browser.find_element(By.LINK_TEXT, "alice").click()
    _wait(browser, lambda b: b.find_elements(By.ID, "timeline"))

    def bar_class(obj: str) -> str:
        return str(browser.find_element(By.CSS_SELECTOR, f"rect.bar[data-object='{obj}']").get_attribute("class"))

    # now: green and Berlin believed; blue and Lisbon are bars that ended
    believed = " | ".join(_texts(browser, "#believed td.text"))
    assert "green" in believed and "Berlin" in believed and "blue" not in believed and "Lisbon" not in believed
    assert "valid" in bar_class("green").split() and "other" in bar_class("blue").split()
    assert browser.find_elements(By.CSS_SELECTOR, "rect.superseded")  # the moment blue was superseded
    _save(browser, "timeline.png")

    # as_of slider to March 2024: blue and Lisbon were the beliefs then
    _slide(browser, "as-of-slider", datetime(2024, 3, 1, tzinfo=timezone.utc))
    assert "as_of=2024-0" in browser.current_url  # the slider snaps to its step
    believed = " | ".join(_texts(browser, "#believed td.text"))
    assert "blue" in believed and "Lisbon" in believed and "green" not in believed
    assert "valid" in bar_class("blue").split() and "other" in bar_class("green").split()

    # known_at slider to before anything was learnt: nothing was known then
    _slide(browser, "known-at-slider", datetime(2024, 1, 1, tzinfo=timezone.utc))
    assert browser.find_elements(By.ID, "no-facts") and not browser.find_elements(By.CSS_SELECTOR, "rect.bar")
    browser.find_element(By.ID, "reset-time").click()

    # the episode a belief came from, one click from its bar
    link = _wait(browser, lambda b: b.find_element(By.XPATH, "//*[local-name()='rect' and @data-object='blue']/.."))
    link.click()
    content = _wait(browser, lambda b: b.find_element(By.ID, "episode-content"))
    assert content.text == "My favourite colour is blue."
    assert "favorite color blue" in " ".join(_texts(browser, "#derived li"))

    # search
    browser.find_element(By.LINK_TEXT, "Search").click()
    box = _wait(browser, lambda b: b.find_element(By.ID, "q"))
    box.send_keys("favourite colour")
    box.submit()
    hits = _wait(browser, lambda b: _texts(b, "#hits td.text"))
    assert any("blue" in h for h in hits) and any("green" in h for h in hits)

    # what the agent would see: the budgeted context, why each item is in, what was cut
    browser.find_element(By.LINK_TEXT, "What the agent sees").click()
    message = _wait(browser, lambda b: b.find_element(By.ID, "message"))
    message.send_keys("Where does the user work?")
    browser.find_element(By.ID, "budget").send_keys("60")
    message.submit()
    summary = _wait(browser, lambda b: b.find_element(By.ID, "context-summary")).text
    assert "of 60 tokens" in summary
    assert browser.find_element(By.ID, "context-text").text.strip()
    assert all(r.strip() for r in _texts(browser, "#sources td.reason"))
    assert any("budget" in r for r in _texts(browser, "#dropped td.reason"))
    _save(browser, "context.png")


def test_hide_restore_edit_a_block_and_forget_a_user(browser: Any, site: str, seeded: Seeded,
                                                     store: NovaStore) -> None:
    from selenium.webdriver.common.by import By

    _sign_in(browser, site, ADMIN_KEY)
    browser.get(f"{site}/ui/users/alice")
    row = f"#believed tr[data-fact-id='{seeded.green_id}']"
    browser.find_element(By.CSS_SELECTOR, f"{row} button[data-action='hide']").click()
    _wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, f"#hidden tr[data-hidden-id='{seeded.green_id}']"))
    assert store.hidden("alice")["facts"] == [seeded.green_id]
    assert "green" not in {f.object for f in store.facts("alice")}
    assert not browser.find_elements(By.CSS_SELECTOR, row)

    browser.find_element(By.CSS_SELECTOR, f"#hidden tr[data-hidden-id='{seeded.green_id}'] button").click()
    _wait(browser, lambda b: b.find_elements(By.CSS_SELECTOR, row))
    assert store.hidden("alice")["facts"] == [] and "green" in {f.object for f in store.facts("alice")}

    browser.find_element(By.LINK_TEXT, "Rules & blocks").click()
    area = _wait(browser, lambda b: b.find_element(By.CSS_SELECTOR, "textarea[data-block-name='persona']"))
    area.clear()
    area.send_keys("Answers in French.")
    browser.find_element(By.CSS_SELECTOR, "form[data-block] button").click()
    _wait(browser, lambda b: store.block("alice", "persona").content == "Answers in French.")
    _wait(browser, lambda b: b.find_element(By.CSS_SELECTOR, "textarea[data-block-name='persona']").get_attribute(
        "value") == "Answers in French.")

    browser.get(f"{site}/ui/users/bob")
    box = _wait(browser, lambda b: b.find_element(By.ID, "forget-confirm"))
    box.send_keys("bo")  # not the id: refused before anything is sent
    browser.find_element(By.CSS_SELECTOR, "#forget-form button").click()
    assert "Type the user id" in _wait(browser, lambda b: b.find_element(By.ID, "notice")).text
    assert "bob" in store.users()
    box.send_keys("b")
    browser.find_element(By.CSS_SELECTOR, "#forget-form button").click()
    _wait(browser, lambda b: b.switch_to.alert).accept()
    _wait(browser, lambda b: b.current_url.rstrip("/").endswith("/ui") and b.find_elements(By.ID, "users"))
    assert "bob" not in _texts(browser, "#users td a") and "bob" not in store.users()
    assert store.facts("bob") == [] and store.episodes("bob") == []


def test_one_users_key_never_shows_another_user_and_memory_html_stays_text(browser: Any, site: str) -> None:
    from selenium.webdriver.common.by import By

    _sign_in(browser, site, ALICE_KEY)
    assert browser.current_url.endswith("/ui/users/alice")
    for path in ("/ui/users/bob", "/ui/users/bob/search?q=locker+code", "/ui/users/bob/procedural"):
        browser.get(f"{site}{path}")
        assert "only access its own user" in browser.find_element(By.ID, "error-message").text
        assert BOB_SECRET not in browser.page_source
    browser.get(f"{site}/ui")
    assert browser.current_url.endswith("/ui/users/alice")

    browser.delete_all_cookies()
    _sign_in(browser, site, ADMIN_KEY)
    for path in ("/ui/users/bob", "/ui/users/bob/procedural", "/ui/users/bob/search?q=locker+code",
                 "/ui/users/bob/graph?entity=user"):
        browser.get(f"{site}{path}")
        _wait(browser, lambda b: b.execute_script("return document.readyState") == "complete")
        assert browser.execute_script("return window.pwned === undefined")
        assert not browser.find_elements(By.CSS_SELECTOR, "main img")
        assert not browser.find_elements(By.XPATH, "//main//script")
        assert HOSTILE in browser.find_element(By.TAG_NAME, "main").text or HOSTILE in (
            browser.find_element(By.CSS_SELECTOR, "textarea").get_attribute("value") or "")
