"""A private SMTP server for the tests (aiosmtpd, started by scripts/test-smtp.sh).

It listens on 127.0.0.1:PORT, requires STARTTLS before anything else, then AUTH as user
`parley` with password `parley-test`, and writes each message it accepts to a file of MAILDIR:
the envelope's MAIL FROM, its RCPT TOs, a blank line, then the raw message as received.
It runs until killed.

    smtp-test-server.py PORT CERT.pem KEY.pem MAILDIR
"""

import os
import signal
import ssl
import sys
import threading
import uuid

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER = b"parley"
PASSWORD = b"parley-test"


def authenticate(server, session, envelope, mechanism, auth_data):
    accepted = isinstance(auth_data, LoginPassword) and auth_data == (USER, PASSWORD)
    # Not "handled": aiosmtpd then answers a refusal itself, with 535.
    return AuthResult(success=accepted, handled=False)


class MaildirHandler:
    def __init__(self, directory):
        self.directory = directory

    async def handle_DATA(self, server, session, envelope):
        name = uuid.uuid4().hex
        partial = os.path.join(self.directory, "." + name)
        with open(partial, "wb") as file:
            file.write(b"MAIL FROM: " + envelope.mail_from.encode() + b"\n")
            for recipient in envelope.rcpt_tos:
                file.write(b"RCPT TO: " + recipient.encode() + b"\n")
            file.write(b"\n")
            file.write(envelope.original_content)
        # Renamed once complete, so that a reader never sees half a message.
        os.rename(partial, os.path.join(self.directory, name + ".eml"))
        return "250 Message accepted for delivery"


def main():
    if len(sys.argv) != 5:
        sys.exit("usage: smtp-test-server.py PORT CERT.pem KEY.pem MAILDIR")
    port, certificate, key, maildir = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(certificate, key)
    controller = Controller(
        MaildirHandler(maildir),
        hostname="127.0.0.1",
        port=port,
        server_hostname="localhost",
        tls_context=tls,
        require_starttls=True,
        auth_required=True,
        auth_require_tls=True,
        authenticator=authenticate,
    )
    controller.start()
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    stopped.wait()
    controller.stop()


if __name__ == "__main__":
    main()
