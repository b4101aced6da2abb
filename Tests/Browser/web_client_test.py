"""The browser client in a real Chromium (headless, through Selenium) against a real server.

Run by scripts/test-browser.sh, which starts the server and passes its address. Each test
registers its own users, so the tests share one server. A screenshot of every step goes to
the artefacts folder, and every page is checked with axe-core for serious accessibility
violations.
"""

import argparse
import json
import os
import urllib.request
import struct
import tempfile
import sys
import time
import unittest
import uuid

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

SERVER = os.environ.get("PARLEY_BROWSER_SERVER", "http://127.0.0.1:54340")
ARTEFACTS = os.environ.get("PARLEY_BROWSER_ARTEFACTS", "browser-artefacts")
PASSWORD = "Passw0rd!"


def png(width, height):
    """A valid PNG of a diagonal gradient, made here so the test needs no image files."""
    import zlib

    raw = b"".join(b"\x00" + b"".join(bytes((x * 255 // width, y * 255 // height, 128)) for x in range(width))
                   for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def totp(secret, step):
    """RFC 6238 with SHA-1, six digits, for the 30-second step `step`."""
    import base64
    import hashlib
    import hmac

    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    digest = hmac.new(key, struct.pack(">Q", step), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return "%06d" % ((struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000)


def wait_for(condition, what, timeout=30):
    """Polls `condition` until it answers something truthy; fails naming `what`."""
    deadline = time.monotonic() + timeout
    last_error = None
    while time.monotonic() < deadline:
        try:
            value = condition()
            if value:
                return value
        except (StaleElementReferenceException, WebDriverException) as error:
            last_error = error
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}" + (f" ({last_error})" if last_error else ""))


class Person:
    """One user in a browser window of their own."""

    def __init__(self, test, nickname, width=1200, height=800):
        self.test = test
        self.nickname = nickname
        self.username = f"{nickname.lower()}_{uuid.uuid4().hex[:8]}"
        options = webdriver.ChromeOptions()
        options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", f"--window-size={width},{height}", "--lang=en-US",
                         # A microphone that plays a tone, allowed without asking: for voice messages.
                         "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=options)
        self.driver.execute_cdp_cmd("Network.enable", {})
        test.addCleanup(self.quit)

    def quit(self):
        for entry in self.driver.get_log("browser"):
            if entry["level"] == "SEVERE" and "/v1/ws" not in entry["message"]:
                print(f"[{self.nickname} console] {entry['message']}", file=sys.stderr)
        self.driver.quit()

    def click(self, selector, what=None):
        """Clicks an element, again if a redraw replaced it in between."""
        wait_for(lambda: self.find(selector).click() or True, what or selector)

    def find(self, selector):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def all(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def shot(self, step):
        os.makedirs(ARTEFACTS, exist_ok=True)
        name = f"{self.test.id().split('.')[-1]}-{step}-{self.nickname.lower()}.png"
        self.driver.save_screenshot(os.path.join(ARTEFACTS, name))

    def check_accessibility(self, step):
        """axe-core on the page as it is: no serious or critical violation."""
        axe = Axe(self.driver)
        axe.inject()
        results = axe.run()
        serious = [v for v in results["violations"] if v["impact"] in ("serious", "critical")]
        os.makedirs(ARTEFACTS, exist_ok=True)
        axe.write_results(results, os.path.join(ARTEFACTS, f"{self.test.id().split('.')[-1]}-{step}-axe.json"))
        self.test.assertEqual(
            [], [f"{v['id']}: {v['help']} ({[n['target'] for n in v['nodes']][:3]})" for v in serious],
            f"axe found serious violations on {step}")

    # The login screen.

    def register(self):
        self.driver.get(SERVER + "/")
        wait_for(lambda: self.find("#auth-login"), "the login form")
        self.find("#tab-register").click()
        self.find("#auth-login").send_keys(self.username)
        self.find("#auth-password").send_keys(PASSWORD)
        self.find("#auth-nickname").send_keys(self.nickname)
        self.find("#auth-submit").click()
        self.wait_online()

    def api(self, method, path, body=None):
        """A request to the server's HTTP API with this person's access token."""
        token = self.driver.execute_script("return JSON.parse(localStorage.getItem('parley.session')).accessToken")
        request = urllib.request.Request(SERVER + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(request) as response:
            return json.loads(response.read() or b"{}")

    def user_id(self):
        return self.driver.execute_script("return JSON.parse(localStorage.getItem('parley.session')).account.user.id")

    def sync_cursor(self):
        """The sync cursor the page last stored, from its IndexedDB."""
        return self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const id = JSON.parse(localStorage.getItem('parley.session')).account.user.id;
            const open = indexedDB.open(`parley-${location.host}-${id}`);
            open.onerror = () => done(null);
            open.onsuccess = () => {
              const read = open.result.transaction('kv').objectStore('kv').get('cursor');
              read.onsuccess = () => { open.result.close(); done(read.result ?? null); };
              read.onerror = () => { open.result.close(); done(null); };
            };
        """)

    def wait_online(self, timeout=30):
        wait_for(lambda: self.find("#connection-state").get_attribute("data-state") == "online", f"{self.nickname} online", timeout)

    def connection_state(self):
        return self.find("#connection-state").get_attribute("data-state")

    # Contacts.

    def ask_to_be_friends(self, other):
        self.find("#tab-contacts").click()
        self.find("#friend-username").send_keys(other.username)
        self.find("#friend-send").click()
        wait_for(lambda: "Request sent" in self.find("#friend-feedback").text, "the request to be sent")

    def accept(self, other):
        self.find("#tab-contacts").click()
        self.click(f'[data-accept="{other.username}"]', f"{other.nickname}'s request")
        wait_for(lambda: self.all(f'[data-message="{other.username}"]'), f"{other.nickname} among the friends")

    # Chats.

    def open_chat(self, title):
        self.find("#tab-chats").click()

        def button():
            for candidate in self.all("#conversation-list .conversation"):
                if candidate.find_element(By.CSS_SELECTOR, ".title").text.strip() == title:
                    return candidate
            return None

        # Found and clicked in one try, again if the list redrew in between.
        wait_for(lambda: (button() or None) and (button().click() or True), f"the chat with {title} in {self.nickname}'s list")
        wait_for(lambda: self.find("#chat-title").text == title, f"the chat with {title} open")

    def type_message(self, text):
        composer = self.find("#composer")
        composer.send_keys(text)
        composer.send_keys(Keys.ENTER)

    def message_item(self, text):
        for item in self.all("#messages li.message"):
            if item.find_element(By.CSS_SELECTOR, ".text").text == text:
                return item
        return None

    def act_on(self, text, action):
        """Hovers a message (its actions show on hover or focus) and clicks one of them."""
        def hover_and_click():
            item = self.message_item(text)
            if item is None:
                return False
            ActionChains(self.driver).move_to_element(item).perform()
            item.find_element(By.CSS_SELECTOR, f'.actions button[aria-label="{action}"]').click()
            return True

        wait_for(hover_and_click, f"{action} on the message {text!r}")

    def messages(self):
        """The texts of the open chat, in the order shown, with each one's state."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#messages li.message')].map(li => "
            "[li.querySelector('.text').textContent, li.dataset.state, li.dataset.seq || null])")

    def texts(self):
        return [text for text, _, _ in self.messages()]

    def wait_texts(self, expected, what, timeout=30):
        wait_for(lambda: self.texts() == expected, f"{what}: {expected}, shown {self.texts()}", timeout)

    # The network.

    def go_offline(self):
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})

    def go_online(self):
        self.driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
            "offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


class WebClientTests(unittest.TestCase):
    def friends(self):
        alice = Person(self, "Alice")
        bob = Person(self, "Bob")
        alice.register()
        bob.register()
        alice.ask_to_be_friends(bob)
        bob.accept(alice)
        return alice, bob

    def chatting(self):
        """Alice and Bob, friends, each with their chat with the other open."""
        alice, bob = self.friends()
        alice.open_chat("Bob")
        bob.open_chat("Alice")
        return alice, bob

    def test_the_page_is_served_with_a_strict_policy_and_the_login_form_is_accessible(self):
        alice = Person(self, "Alice")
        alice.driver.get(SERVER + "/")
        wait_for(lambda: alice.find("#auth-login"), "the login form")
        alice.shot("1-login")
        alice.check_accessibility("login")
        alice.find("#auth-login").send_keys("nobody_" + uuid.uuid4().hex[:6])
        alice.find("#auth-password").send_keys("wrong password")
        alice.find("#auth-submit").click()
        wait_for(lambda: alice.find("#auth-error").text, "the server's error")
        self.assertIn("password", alice.find("#auth-error").text.lower())
        alice.find("#tab-register").click()
        alice.find("#auth-login").clear()
        alice.find("#auth-login").send_keys("ab")
        alice.find("#auth-password").clear()
        alice.find("#auth-password").send_keys("short")
        alice.find("#auth-submit").click()
        wait_for(lambda: "username" in alice.find("#auth-error").text.lower(), "the precise error for a bad username")
        alice.shot("2-register-error")
        # An inline script is refused by the page's policy.
        alice.driver.execute_script(
            "const s = document.createElement('script'); s.textContent = 'window.inlineRan = true'; document.body.append(s);")
        self.assertFalse(alice.driver.execute_script("return window.inlineRan === true"), "an inline script ran")

    def test_two_people_register_befriend_and_chat(self):
        alice, bob = self.friends()
        alice.shot("1-friends")
        alice.open_chat("Bob")
        bob.open_chat("Alice")
        wait_for(lambda: alice.find("#peer-presence").text == "online", "Bob shown online")
        bob.find("#composer").send_keys("Hel")
        wait_for(lambda: alice.find("#typing").text == "Bob is typing…", "Bob typing, on Alice's screen")
        bob.find("#composer").clear()
        alice.type_message("Hi Bob! 你好")
        bob.wait_texts(["Hi Bob! 你好"], "Bob sees Alice's message")
        bob.type_message("Hello Alice 👋")
        alice.wait_texts(["Hi Bob! 你好", "Hello Alice 👋"], "Alice sees the reply")
        wait_for(lambda: alice.messages()[0][1] == "read", "Alice's message shown as read")
        alice.shot("2-chat")
        bob.shot("2-chat")
        alice.check_accessibility("chat")
        def theme_and_background():
            return alice.driver.execute_script(
                "return [document.documentElement.dataset.theme, getComputedStyle(document.body).backgroundColor]")

        alice.find("#theme-toggle").click()  # the page follows the system's day: night
        night = theme_and_background()
        alice.find("#theme-toggle").click()
        day = theme_and_background()
        self.assertEqual(("night", "day"), (night[0], day[0]))
        self.assertNotEqual(night[1], day[1], "day and night look different")
        alice.find("#theme-toggle").click()
        alice.shot("2-chat-night")
        alice.check_accessibility("chat-night")
        alice.driver.refresh()
        wait_for(lambda: alice.find("#conversation-list"), "the app after a reload")
        self.assertEqual("night", alice.driver.execute_script("return document.documentElement.dataset.theme"), "the theme is kept")
        # At phone width the list and the chat take the screen in turn.
        bob.driver.set_window_size(390, 844)
        bob.shot("3-phone-chat")
        bob.find(".back").click()
        wait_for(lambda: bob.find("#conversation-list").is_displayed(), "the list at phone width")
        bob.shot("4-phone-list")
        bob.check_accessibility("phone-list")

    def test_messages_written_offline_arrive_once_and_in_order(self):
        alice, bob = self.chatting()
        alice.type_message("before the tunnel")
        bob.wait_texts(["before the tunnel"], "Bob sees the first message")
        alice.go_offline()
        wait_for(lambda: alice.connection_state() == "offline", "Alice's page to show it is offline")
        for text in ["in the tunnel 1", "in the tunnel 2", "in the tunnel 3"]:
            alice.type_message(text)
        wait_for(lambda: [s for _, s, _ in alice.messages()] == ["read", "sending", "sending", "sending"],
                 f"three messages waiting, shown {alice.messages()}")
        bob.type_message("are you there?")
        alice.shot("1-offline")
        time.sleep(1)
        self.assertEqual(bob.texts(), ["before the tunnel", "are you there?"], "nothing arrived while Alice was offline")
        alice.go_online()
        alice.wait_online()
        # Alice's three reached the server after Bob's question: both see them after it.
        expected = ["before the tunnel", "are you there?", "in the tunnel 1", "in the tunnel 2", "in the tunnel 3"]
        alice.wait_texts(expected, "Alice sees every message once, in the server's order")
        bob.wait_texts(expected, "Bob sees every message once, in order")
        seqs = [int(seq) for _, _, seq in bob.messages()]
        self.assertEqual(seqs, sorted(seqs), "shown in seq order")
        self.assertEqual(len(set(seqs)), len(seqs), "no message twice")
        alice.shot("2-back-online")
        bob.shot("2-back-online")

    def test_a_reload_while_sending_loses_nothing_and_doubles_nothing(self):
        alice, bob = self.chatting()
        # Written offline, the message waits in the outbox; the page reloads the moment the
        # network is back, so the old page may or may not have sent it on its way out.
        alice.go_offline()
        wait_for(lambda: alice.connection_state() == "offline", "Alice offline")
        alice.type_message("written before the reload")
        wait_for(lambda: alice.messages() and alice.messages()[-1][1] == "sending", "the message waiting")
        alice.go_online()
        alice.driver.refresh()
        wait_for(lambda: alice.find("#conversation-list"), "the app after the reload")
        alice.open_chat("Bob")
        alice.wait_texts(["written before the reload"], "the message after the reload")
        alice.shot("1-reloaded")
        bob.wait_texts(["written before the reload"], "Bob gets the message once")
        # Send and reload at once: whether the server had it or not, it is there once.
        alice.type_message("sent as the page reloads")
        wait_for(lambda: "sent as the page reloads" in alice.texts(), "the local echo")
        alice.driver.refresh()
        wait_for(lambda: alice.find("#conversation-list"), "the app after the second reload")
        alice.open_chat("Bob")
        expected = ["written before the reload", "sent as the page reloads"]
        alice.wait_texts(expected, "Alice sees both once")
        bob.wait_texts(expected, "Bob sees both once")
        wait_for(lambda: [s for _, s, _ in alice.messages()] == ["read", "read"], "both read by Bob")
        time.sleep(1)
        self.assertEqual(bob.texts(), expected, "no message came twice")
        alice.shot("2-after-reloads")
        bob.shot("2-after-reloads")

    def test_reply_recall_with_re_edit_and_search(self):
        alice, bob = self.chatting()
        alice.type_message("我们明天上午十点开会")
        bob.wait_texts(["我们明天上午十点开会"], "Bob sees the message")
        bob.act_on("我们明天上午十点开会", "Reply")
        wait_for(lambda: "Replying to Alice" in bob.find("#reply-text").text, "the reply bar")
        bob.type_message("好的，十点见")
        alice.wait_texts(["我们明天上午十点开会", "好的，十点见"], "Alice sees the reply")
        wait_for(lambda: "Alice: 我们明天上午十点开会" in alice.message_item("好的，十点见").text, "the quote in the reply")
        alice.shot("1-reply")

        alice.type_message("see you tomorow")
        bob.wait_texts(["我们明天上午十点开会", "好的，十点见", "see you tomorow"], "Bob sees the misspelt message")
        alice.act_on("see you tomorow", "Edit")
        composer = alice.find("#composer")
        self.assertEqual("see you tomorow", composer.get_attribute("value"))
        composer.clear()
        alice.type_message("see you tomorrow")
        bob.wait_texts(["我们明天上午十点开会", "好的，十点见", "see you tomorrow"], "the edit reaches Bob")
        wait_for(lambda: "edited" in bob.message_item("see you tomorrow").text, "marked edited")
        alice.act_on("see you tomorrow", "Recall")
        bob.wait_texts(["我们明天上午十点开会", "好的，十点见", "A message was recalled"], "recalled after the edit")
        alice.find("#composer").clear()
        alice.type_message("a typo I regret")
        bob.wait_texts(["我们明天上午十点开会", "好的，十点见", "A message was recalled", "a typo I regret"], "Bob sees the typo")
        alice.act_on("a typo I regret", "Recall")
        alice.wait_texts(["我们明天上午十点开会", "好的，十点见", "You recalled a message", "You recalled a message"], "Alice sees it recalled")
        bob.wait_texts(["我们明天上午十点开会", "好的，十点见", "A message was recalled", "A message was recalled"], "the recall reaches Bob")
        wait_for(lambda: bob.find("#conversation-list .preview").text == "A message was recalled", "the recall in Bob's chat list")
        alice.find("#messages li.message:last-child .actions button").click()
        wait_for(lambda: alice.find("#composer").get_attribute("value") == "a typo I regret", "the recalled text back in the composer")
        alice.shot("2-recalled")
        bob.shot("2-recalled")

        search = bob.find("#search")
        search.send_keys("十点开会")
        hit = wait_for(lambda: bob.all("#search-results .hit"), "a search hit")[0]
        self.assertEqual("我们明天上午十点开会", hit.text)
        self.assertEqual("十点开会", hit.find_element(By.CSS_SELECTOR, "mark").text)
        self.assertEqual(1, len(bob.all("#search-results .hit")), "the recalled message and the reply are not hits")
        bob.shot("3-search")
        bob.check_accessibility("search")
        hit.click()
        wait_for(lambda: bob.find("#chat-title").text == "Alice", "the chat opened from the hit")

    def test_a_picture_is_uploaded_and_shown_on_the_other_side(self):
        alice, bob = self.chatting()
        path = os.path.join(tempfile.mkdtemp(), "gradient.png")
        with open(path, "wb") as file:
            file.write(png(640, 400))
        alice.find("#file-picker").send_keys(path)

        def shown(person):
            images = person.all("#messages img.picture")
            return images and person.driver.execute_script(
                "const i = arguments[0]; return i.complete && i.naturalWidth > 0 && !i.src.startsWith('blob:')", images[-1])

        wait_for(lambda: shown(alice), "Alice's picture sent and shown from the server")
        wait_for(lambda: shown(bob), "the picture on Bob's side")
        image = bob.all("#messages img.picture")[-1]
        self.assertEqual(("280", "175"), (image.get_attribute("width"), image.get_attribute("height")), "its proportions")
        self.assertEqual(320, bob.driver.execute_script("return arguments[0].naturalWidth", image), "the thumbnail, not the whole picture")
        self.assertEqual("[Image]", bob.find("#conversation-list .preview").text)
        bob.shot("1-picture")
        bob.find("#messages .picture-button").click()
        viewer = wait_for(lambda: bob.find("dialog.viewer[open] img"), "the picture viewer")
        wait_for(lambda: bob.driver.execute_script("return arguments[0].naturalWidth", viewer) == 640, "the whole picture")
        bob.shot("2-viewer")
        bob.check_accessibility("viewer")

    def system_lines(self, person):
        return [li.text for li in person.all("#messages li.system")]

    def test_group_administration(self):
        alice, bob = self.friends()
        carol = Person(self, "Carol")
        carol.register()
        alice.ask_to_be_friends(carol)
        carol.accept(alice)

        alice.find("#tab-chats").click()
        alice.find("#new-group-open").click()
        alice.find("#new-group-name").send_keys("Launch 团队")
        for person in (bob, carol):
            alice.find(f'#new-group input[data-username="{person.username}"]').click()
        alice.shot("1-new-group")
        alice.find("#new-group-create").click()
        wait_for(lambda: alice.find("#chat-title").text == "Launch 团队", "the new group open")
        for person in (bob, carol):
            person.open_chat("Launch 团队")
        alice.type_message("Welcome, both of you")
        carol.wait_texts(["Welcome, both of you"], "Carol reads the group")

        alice.find("#group-info").click()
        wait_for(lambda: alice.all("#group-members [data-role-for]"), "the member list")
        bob_id, carol_id = bob.user_id(), carol.user_id()
        alice.find(f'[data-role-for="{bob_id}"]').click()
        wait_for(lambda: alice.find(f'[data-member="{bob_id}"] .preview').text == "Admin", "Bob shown as an admin")
        announcement = alice.find("#group-announcement")
        announcement.send_keys("Standup at 10, every day")
        alice.find("#group-announce").click()
        alice.shot("2-group-panel")
        alice.check_accessibility("group-panel")
        alice.find("#group-panel-close").click()

        wait_for(lambda: "Alice made you an admin" in self.system_lines(bob), f"Bob told he is an admin: {self.system_lines(bob)}")
        wait_for(lambda: bob.find("#announcement").text == "📢 Standup at 10, every day", "the announcement on Bob's screen")

        bob.find("#group-info").click()
        remove = wait_for(lambda: bob.find(f'[data-remove="{carol_id}"]'), "Bob may remove Carol")
        self.assertEqual([], bob.all(f'[data-remove="{alice.user_id()}"]'), "an admin is not offered to remove the owner")
        remove.click()
        wait_for(lambda: not bob.all(f'[data-member="{carol_id}"]'), "Carol gone from the members")
        rename = bob.find("#group-name")
        rename.clear()
        rename.send_keys("Launch team")
        bob.find("#group-rename").click()
        wait_for(lambda: bob.find("#chat-title").text == "Launch team", "the new name on Bob's screen")
        bob.find("#group-panel-close").click()

        wait_for(lambda: "Bob removed you" in self.system_lines(carol), f"Carol told she was removed: {self.system_lines(carol)}")
        wait_for(lambda: carol.find("#composer").get_attribute("disabled") is not None, "Carol can no longer write there")
        alice.wait_texts(["Welcome, both of you"], "the message stays")
        wait_for(lambda: alice.find("#chat-title").text == "Launch team", "Alice sees the new name")
        self.assertEqual(
            ["You made Bob an admin", "You posted an announcement: Standup at 10, every day", "Bob removed Carol",
             "Bob renamed the group to “Launch team”"],
            self.system_lines(alice)[-4:])
        alice.shot("3-after")
        bob.shot("3-after")
        carol.shot("3-removed")

    def test_settings_sessions_and_conversation_settings(self):
        alice, bob = self.friends()
        # Alice signs in on a second browser: two sessions, one signed out from the other.
        laptop = Person(self, "Alice")
        laptop.username = alice.username
        laptop.driver.get(SERVER + "/")
        wait_for(lambda: laptop.find("#auth-login"), "the login form")
        laptop.find("#auth-login").send_keys(alice.username)
        laptop.find("#auth-password").send_keys(PASSWORD)
        laptop.find("#auth-submit").click()
        laptop.wait_online()

        alice.find("#settings-open").click()
        wait_for(lambda: len(alice.all("#sessions li")) == 2, "both of Alice's sessions listed")
        nickname = alice.find("#settings-nickname")
        nickname.clear()
        nickname.send_keys("Alice Liddell")
        alice.find("#settings-signature").send_keys("Down the rabbit hole")
        path = os.path.join(tempfile.mkdtemp(), "me.png")
        with open(path, "wb") as file:
            file.write(png(96, 96))
        alice.find("#settings-avatar").send_keys(path)
        alice.find("#settings-save-profile").click()
        wait_for(lambda: alice.find("#settings-feedback").text == "Profile saved.", "the profile saved")
        wait_for(lambda: laptop.find("#me").text == "Alice Liddell", "the new name on Alice's other device")
        bob.find("#tab-chats").click()
        wait_for(lambda: bob.driver.execute_script(
            "const i = document.querySelector('#conversation-list .avatar img'); return i && i.complete && i.naturalWidth === 96"),
            "Alice's picture in Bob's chat list")
        alice.shot("1-settings")
        alice.check_accessibility("settings")
        alice.click("#push-group")
        wait_for(lambda: alice.find("#settings-feedback").text == "Notifications saved.", "group pushes off")
        alice.click("#quiet-on")
        wait_for(lambda: alice.api("GET", "/v1/me/notifications")["quietHours"] == [{"start": "22:00", "end": "07:00"}], "quiet hours kept")
        self.assertFalse(alice.api("GET", "/v1/me/notifications")["group"])
        alice.driver.find_element(By.CSS_SELECTOR, "#settings-text-size option[value='larger']").click()
        self.assertEqual("125%", alice.driver.execute_script("return document.documentElement.style.fontSize"))
        alice.find("[data-revoke]").click()
        wait_for(lambda: laptop.find("#auth-error").text, "the other device sent back to the login screen")
        self.assertIn("ended", laptop.find("#auth-error").text)
        wait_for(lambda: len(alice.all("#sessions li")) == 1, "one session left")
        alice.find("#settings-close").click()

        # Pin, mute and a draft, kept on the server and seen on another chat.
        alice.open_chat("Bob")
        alice.find("#pin").click()
        wait_for(lambda: alice.find("#pin").text == "Unpin", "pinned")
        alice.find("#mute").click()
        wait_for(lambda: alice.find("#mute").text == "Unmute", "muted")
        alice.find("#composer").send_keys("half a thought")
        # Leaving the page keeps what was typed as the draft, on the server.
        alice.driver.refresh()
        wait_for(lambda: alice.find("#conversation-list .preview").text == "Draft: half a thought", "the draft in the list")
        flags = [f.get_attribute("aria-label") for f in alice.all("#conversation-list .flag")]
        self.assertEqual(["pinned", "muted"], flags, "shown pinned and muted")
        alice.open_chat("Bob")
        self.assertEqual("half a thought", alice.find("#composer").get_attribute("value"), "the draft back in the composer")
        alice.find("#composer").send_keys(Keys.ENTER)
        bob.open_chat("Alice Liddell")  # her new name reached Bob
        bob.wait_texts(["half a thought"], "the draft, sent")
        wait_for(lambda: alice.find("#conversation-list .preview").text == "half a thought", "no draft once sent")
        alice.shot("2-pinned-muted-draft")

    def test_mentions_emoji_forward_files_and_voice(self):
        alice, bob = self.friends()
        alice.find("#tab-chats").click()
        alice.find("#new-group-open").click()
        alice.find("#new-group-name").send_keys("Team")
        alice.find(f'#new-group input[data-username="{bob.username}"]').click()
        alice.find("#new-group-create").click()
        wait_for(lambda: alice.find("#chat-title").text == "Team", "the group open")
        composer = alice.find("#composer")
        wait_for(lambda: composer.send_keys("@B") or True, "typing")
        wait_for(lambda: [o.text for o in alice.all("#mention-list [role=option]")] == ["Bob"], "Bob suggested")
        composer.send_keys(Keys.ENTER)
        self.assertEqual("@Bob ", composer.get_attribute("value"))
        composer.send_keys("look at this ")
        alice.find("#emoji").click()
        alice.find('#emoji-panel [aria-label="party"]').click()
        alice.shot("1-mention")
        composer.send_keys(Keys.ENTER)
        bob.find("#tab-chats").click()
        wait_for(lambda: any(c.find_elements(By.CSS_SELECTOR, ".mention") for c in bob.all("#conversation-list .conversation")),
                 "the group marked as mentioning Bob")
        bob.open_chat("Team")
        bob.wait_texts(["@Bob look at this 🎉"], "Bob reads the mention")

        bob.act_on("@Bob look at this 🎉", "Forward")
        wait_for(lambda: bob.all("#forward [data-forward-to]"), "the chats to forward to")
        target = [b for b in bob.all("#forward [data-forward-to]") if b.text == "Alice"][0]
        target.click()
        alice.open_chat("Bob")
        alice.wait_texts(["@Bob look at this 🎉"], "the copy in Alice's chat with Bob")

        path = os.path.join(tempfile.mkdtemp(), "notes.txt")
        with open(path, "w") as file:
            file.write("Minutes: ship on Friday.\n")
        alice.find("#file-picker").send_keys(path)
        link = wait_for(lambda: [a for a in bob.all("#messages .download") if a.get_attribute("href").find("/v1/files/") > 0] if bob.open_chat("Alice") or True else None,
                        "the file on Bob's side")[0]
        self.assertIn("notes.txt", bob.find("#messages .file-name").text)
        content = bob.driver.execute_script("return fetch(arguments[0]).then(r => r.text())", link.get_attribute("href"))
        self.assertEqual("Minutes: ship on Friday.\n", content)

        alice.find("#record").click()
        wait_for(lambda: alice.find("#record").get_attribute("aria-pressed") == "true", "recording")
        time.sleep(2.2)
        alice.find("#record").click()

        def voice_ready():
            players = bob.all("#messages .voice audio")
            return players and "/v1/files/" in (players[-1].get_attribute("src") or "")

        wait_for(voice_ready, "the voice message on Bob's side")
        # Recorded for 2.2 s, plus however long the stop click takes on a loaded machine.
        length = bob.all("#messages .voice .file-size")[-1].text
        self.assertRegex(length, r"^[2-4] s$", "the recording's length, in whole seconds")
        duration = bob.driver.execute_script(
            "const a = arguments[0]; a.preload = 'auto'; a.load(); return new Promise(r => a.onloadedmetadata = () => r(a.duration))",
            bob.all("#messages .voice audio")[-1])
        self.assertTrue(duration > 1 or duration == float("inf"), f"a recording that plays: {duration}")
        bob.shot("2-file-and-voice")
        bob.check_accessibility("file-and-voice")

    def test_history_is_paged_upwards_without_a_hole_or_a_double(self):
        alice, bob = self.friends()
        alice.open_chat("Bob")
        conversation = int(alice.find("#conversation-list .conversation").get_attribute("data-conversation-id"))
        for number in range(1, 131):
            alice.api("POST", "/v1/messages", {"conversationId": conversation, "clientMsgId": f"bulk-{number}",
                                               "kind": "text", "content": {"text": f"message {number}"}})
        bob.open_chat("Alice")
        wait_for(lambda: bob.texts()[-1:] == ["message 130"], "the newest message")
        self.assertEqual([f"message {n}" for n in range(31, 131)], bob.texts(), "the newest hundred first")
        for _ in range(10):
            bob.driver.execute_script("document.querySelector('.messages').scrollTop = 0")
            time.sleep(0.3)
            if bob.texts()[:1] == ["message 1"]:
                break
        self.assertEqual([f"message {n}" for n in range(1, 131)], bob.texts(), "every message once, in order, after paging up")
        bob.shot("1-paged")

    def test_find_people_block_and_join_with_a_code(self):
        alice, bob = self.friends()
        dora = Person(self, "Dora" + uuid.uuid4().hex[:6])
        dora.register()
        alice.find("#tab-contacts").click()
        alice.find("#people-query").send_keys(dora.nickname)
        alice.find("#people-search").click()
        alice.click(f'[data-ask="{dora.username}"]', "Dora found by her name")
        wait_for(lambda: alice.find("#friend-feedback").text == f"Request sent to {dora.nickname}.", "the request sent")

        # A friend group and a remark: only Alice sees them, and the remark names Bob everywhere.
        alice.find("#friend-group-name").send_keys("Work")
        alice.find("#friend-group-create").click()
        wait_for(lambda: [o.text for o in alice.all("#friend-group-filter option")] == ["All friends", "Work"], "the group made")
        alice.find(f'[data-edit="{bob.username}"]').click()
        remark = wait_for(lambda: alice.find("#contact-remark"), "the friend's details")
        remark.send_keys("Bobby (design)")
        alice.find("#contact-editor .check input").click()
        alice.find("#contact-save").click()
        alice.click("#friend-group-filter option:nth-child(2)")
        wait_for(lambda: [t.text.split(" @")[0] for t in alice.all("#friends .title")] == ["Bobby (design)"], "Bob in Work, by his remark")
        alice.find("#tab-chats").click()
        wait_for(lambda: "Bobby (design)" in [t.text for t in alice.all("#conversation-list .title")], "the remark in the chat list")
        alice.find("#tab-contacts").click()
        alice.click("#friend-group-filter option:nth-child(1)")

        # A block: Bob's messages are refused with the server's words, and nothing arrives.
        alice.find(f'[data-block="{bob.username}"]').click()
        wait_for(lambda: alice.all(f'[data-unblock="{bob.username}"]'), "Bob in Alice's blocked list")
        alice.shot("1-blocked")
        alice.check_accessibility("contacts")
        bob.open_chat("Alice")
        bob.type_message("can you hear me?")
        wait_for(lambda: bob.messages() and bob.messages()[-1][1] == "failed", "Bob's message refused")
        self.assertEqual("This user does not accept messages from you.", bob.find(".failure").text)
        bob.shot("2-refused")
        alice.find(f'[data-unblock="{bob.username}"]').click()
        wait_for(lambda: not alice.all(f'[data-unblock="{bob.username}"]'), "Bob unblocked")

        # An invite code: Dora, no friend of anyone there, joins the group with it.
        alice.find("#tab-chats").click()
        alice.find("#new-group-open").click()
        alice.find("#new-group-name").send_keys("Book club")
        alice.find("#new-group-create").click()
        wait_for(lambda: alice.find("#chat-title").text == "Book club", "the group open")
        alice.find("#group-info").click()
        alice.click("#group-invite", "the group panel")
        code = wait_for(lambda: alice.find("#group-invite-code").text, "an invite code")
        alice.find("#group-panel-close").click()
        dora.find("#join-open").click()
        dora.find("#join-code").send_keys(code)
        dora.find("#join-submit").click()
        wait_for(lambda: dora.find("#chat-title").text == "Book club", "Dora in the group")
        wait_for(lambda: f"{dora.nickname} joined" in [li.text for li in alice.all("#messages li.system")], "Alice sees Dora join")
        dora.type_message("Hello, readers")
        alice.wait_texts(["Hello, readers"], "Dora's first message in the group")
        dora.shot("3-joined")

    def test_two_factor_login_asks_for_the_code(self):
        alice = Person(self, "Alice")
        alice.register()
        setup = alice.api("POST", "/v1/me/two-factor", {})
        step = int(time.time()) // 30
        alice.api("POST", "/v1/me/two-factor/confirm", {"code": totp(setup["secret"], step)})
        alice.find("#logout").click()
        wait_for(lambda: alice.find("#auth-login"), "the login screen after logging out")
        alice.find("#auth-login").send_keys(alice.username)
        alice.find("#auth-password").send_keys(PASSWORD)
        alice.find("#auth-submit").click()
        code = wait_for(lambda: alice.find("#auth-code") if alice.find("#auth-code").is_displayed() else None, "the code field")
        alice.shot("1-code")
        alice.check_accessibility("second-factor")
        code.send_keys("000000" if totp(setup["secret"], step + 1) != "000000" else "111111")
        alice.find("#auth-submit").click()
        wait_for(lambda: alice.find("#auth-error").text, "a wrong code refused")
        self.assertIn("code", alice.find("#auth-error").text.lower())
        code.clear()
        code.send_keys(totp(setup["secret"], step + 1))  # the next step's: the first was used to confirm
        alice.find("#auth-submit").click()
        alice.wait_online()

    def test_approval_mutes_transfer_and_dissolution(self):
        alice, bob = self.friends()
        dora = Person(self, "Dora")
        dora.register()
        alice.find("#tab-chats").click()
        alice.find("#new-group-open").click()
        alice.find("#new-group-name").send_keys("Council")
        alice.find(f'#new-group input[data-username="{bob.username}"]').click()
        alice.find("#new-group-create").click()
        wait_for(lambda: alice.find("#chat-title").text == "Council", "the group open")
        alice.find("#group-info").click()
        policy = wait_for(lambda: alice.find("#group-join-policy"), "the join policy")
        policy.find_element(By.CSS_SELECTOR, "option[value='approval']").click()
        wait_for(lambda: "set who may join" in " ".join(li.text for li in alice.all("#messages li.system")), "the policy changed")
        alice.click("#group-invite", "the invite button")
        code = wait_for(lambda: alice.find("#group-invite-code").text, "an invite code")

        dora.find("#join-open").click()
        dora.find("#join-code").send_keys(code)
        dora.find("#join-submit").click()
        wait_for(lambda: dora.find("#join-feedback").text.startswith("Asked to join"), "Dora told to wait")
        approve = wait_for(lambda: alice.find(f'[data-approve="{dora.user_id()}"]'), "Dora's request in the panel (it redraws on the event)")
        alice.shot("1-join-request")
        approve.click()
        dora.open_chat("Council")

        bob_id = bob.user_id()
        alice.click(f'[data-mute="{bob_id}"]', "the mute button")
        wait_for(lambda: "muted until" in alice.find(f'[data-member="{bob_id}"] .preview').text, "Bob shown muted")
        bob.open_chat("Council")
        bob.type_message("may I speak?")
        wait_for(lambda: bob.messages() and bob.messages()[-1][1] == "failed", "Bob's message refused")
        self.assertIn("muted", bob.find(".failure").text)
        alice.click(f'[data-mute="{bob_id}"]', "the lift button")
        wait_for(lambda: "muted" not in alice.find(f'[data-member="{bob_id}"] .preview').text, "the mute lifted")
        bob.find(".failure-row button").click()  # Retry
        alice.wait_texts(["may I speak?"], "Bob's message sent again once he may")

        alice.click(f'[data-transfer="{bob_id}"]')
        wait_for(lambda: alice.find(f'[data-member="{bob_id}"] .preview').text.startswith("Owner"), "Bob the owner")
        alice.find("#group-panel-close").click()
        bob.find("#group-info").click()
        bob.driver.execute_script("window.confirm = () => true")
        bob.click("#group-dissolve", "the dissolve button for the new owner")
        wait_for(lambda: alice.find("#composer").get_attribute("disabled") is not None, "the group read-only for Alice")
        wait_for(lambda: "Bob dissolved the group" in [li.text for li in alice.all("#messages li.system")], "the dissolution in words")
        alice.shot("2-dissolved")

    def test_a_desktop_notification_when_the_page_is_hidden(self):
        alice, bob = self.friends()
        alice.open_chat("Bob")
        alice.driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": SERVER, "permissions": ["notifications"]})
        # The page is told it is hidden (as in a background tab), and the notifications it
        # shows are recorded instead of reaching the desktop of the machine running the test.
        alice.driver.execute_script("""
            Object.defineProperty(document, 'visibilityState', { get: () => 'hidden' });
            window.shown = [];
            window.Notification = class { static permission = 'granted';
              constructor(title, options) { window.shown.push([title, options.body]); } };
        """)
        bob.open_chat("Alice")
        bob.type_message("Are you at your desk?")
        wait_for(lambda: alice.driver.execute_script("return window.shown.length") == 1, "one notification")
        self.assertEqual([["Bob", "Are you at your desk?"]], alice.driver.execute_script("return window.shown"))
        self.assertEqual("1", alice.find("#conversation-list .badge").text, "unread while hidden: not marked read")

    def test_a_pin_pushed_while_the_catch_up_page_is_on_its_way_stays(self):
        alice, bob = self.friends()
        alice.open_chat("Bob")
        conversation = int(alice.find("#conversation-list .conversation").get_attribute("data-conversation-id"))
        # A catch-up first, past the events of their becoming friends (a `conversation.added`
        # in the page would fetch the conversation anew, as it then stands).
        before = alice.sync_cursor()
        alice.driver.refresh()
        wait_for(lambda: alice.sync_cursor() not in (None, before), "a catch-up")
        # From the next page load on, the answer to the page's first sync request is held
        # until the test lets it through: the server's pushes overtake a page read before them.
        alice.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.syncGate = { hold: true, ids: new Set(), held: [], events: 0, released: new Set() };
            const Native = window.WebSocket;
            window.WebSocket = class extends Native {
              constructor(...args) {
                super(...args);
                const gate = window.syncGate;
                this.addEventListener('message', (event) => {
                  if (gate.released.has(event)) return;
                  const frame = JSON.parse(event.data);
                  if (frame.type === 'event') gate.events += 1;
                  if (!gate.ids.has(frame.id)) return;
                  gate.ids.delete(frame.id);
                  event.stopImmediatePropagation();
                  gate.held.push([this, event.data]);
                });
              }
              send(data) {
                const frame = JSON.parse(data);
                if (frame.type === 'sync' && window.syncGate.hold) {
                  window.syncGate.hold = false;
                  window.syncGate.ids.add(frame.id);
                }
                super.send(data);
              }
            };
            window.syncGate.release = () => {
              for (const [socket, data] of window.syncGate.held) {
                const event = new MessageEvent('message', { data });
                window.syncGate.released.add(event);
                socket.dispatchEvent(event);
              }
              window.syncGate.held = [];
            };
        """})
        # Alice leaves the page and Bob writes: her next page carries the conversation, with her
        # settings as they are then.
        token = alice.driver.execute_script("return JSON.parse(localStorage.getItem('parley.session')).accessToken")
        alice.driver.get(SERVER + "/health")
        bob.api("POST", "/v1/messages", {"conversationId": conversation, "clientMsgId": "while-away",
                                         "kind": "text", "content": {"text": "Lunch?"}})
        alice.driver.get(SERVER + "/")
        wait_for(lambda: alice.driver.execute_script("return window.syncGate.held.length") == 1, "the catch-up page held")
        self.assertNotEqual("Lunch?", alice.find("#conversation-list .preview").text, "not there before the page")
        request = urllib.request.Request(SERVER + f"/v1/conversations/{conversation}/settings", method="PATCH",
                                         data=json.dumps({"pinned": True}).encode(),
                                         headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        urllib.request.urlopen(request).close()
        wait_for(lambda: alice.driver.execute_script("return window.syncGate.events") >= 1, "the pin pushed")
        alice.driver.execute_script("window.syncGate.release()")
        wait_for(lambda: alice.find("#conversation-list .preview").text == "Lunch?", "the page applied")
        wait_for(lambda: [f.get_attribute("aria-label") for f in alice.all("#conversation-list .flag")] == ["pinned"],
                 "the pin, which outlives the older page", timeout=10)
        alice.shot("1-pinned-after-the-page")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("unittest_args", nargs="*")
    arguments = parser.parse_args()
    unittest.main(argv=[sys.argv[0], "-v"] + arguments.unittest_args)
