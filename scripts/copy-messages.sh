#!/usr/bin/env bash
# Multiplies the messages stored in a PostgreSQL Parley database, with their search index
# rows, for measuring search over more messages than the API can seed in a session (one
# node seeds about 250 msg/s). Each conversation's history is appended COPIES - 1 more times
# after itself, copy after copy, with its seqs continued, so that every conversation keeps
# dense seqs and the same mix of text; then the tables are vacuumed and analysed, as a
# server that has run a while would have them.
#   scripts/copy-messages.sh postgres://postgres@127.0.0.1:54329/parley_bench 10
# For `parley bench search --messages 100000 --before-queries "scripts/copy-messages.sh URL 10"`.
set -euo pipefail
URL=$1
COPIES=$2
psql -v ON_ERROR_STOP=1 -q "$URL" <<SQL
BEGIN;
CREATE TEMP TABLE originals ON COMMIT DROP AS
    SELECT m.id, m.conversation_id, m.seq, c.max_seq
    FROM messages m JOIN conversations c ON c.id = m.conversation_id;
CREATE TEMP TABLE copies ON COMMIT DROP AS
    SELECT (SELECT max(id) FROM messages) + row_number() OVER (ORDER BY k, o.id) AS id, o.id AS original, k,
        o.conversation_id, o.seq + k * o.max_seq AS seq
    FROM generate_series(1, $COPIES - 1) k CROSS JOIN originals o;
INSERT INTO messages (id, conversation_id, seq, sender_id, client_msg_id, kind, content, sent_at)
    SELECT c.id, c.conversation_id, c.seq, m.sender_id, m.client_msg_id || '.' || c.k, m.kind, m.content, m.sent_at
    FROM copies c JOIN messages m ON m.id = c.original ORDER BY c.id;
INSERT INTO message_text (message_id, folded)
    SELECT c.id, t.folded FROM copies c JOIN message_text t ON t.message_id = c.original ORDER BY c.id;
SELECT setval(pg_get_serial_sequence('messages', 'id'), (SELECT max(id) FROM messages));
UPDATE conversations SET max_seq = max_seq * $COPIES WHERE id IN (SELECT conversation_id FROM originals);
COMMIT;
VACUUM ANALYZE messages;
VACUUM ANALYZE message_text;
SQL
psql -q -t -A "$URL" -c "SELECT 'messages stored: ' || count(*) FROM messages"
