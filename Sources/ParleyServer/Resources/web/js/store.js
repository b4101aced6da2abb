// What this browser keeps for one user, in IndexedDB, so that a reload or a night offline
// loses nothing: messages by (conversation, seq), conversations, the sync cursor, and the
// outbox of messages written but not yet acknowledged by the server.

const VERSION = 1;

function promised(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function finished(transaction) {
  return new Promise((resolve, reject) => {
    transaction.oncomplete = () => resolve();
    transaction.onabort = transaction.onerror = () => reject(transaction.error);
  });
}

/** Which form of one message to keep: protocol.md, "Keeping the newest form". */
export function newerForm(held, incoming) {
  if (!held) return incoming;
  const rank = (m) => (m.kind === 'deleted' ? 3 : m.kind === 'recalled' ? 2 : 1);
  if (rank(incoming) !== rank(held)) return rank(incoming) > rank(held) ? incoming : held;
  return (incoming.editedAt ?? 0) > (held.editedAt ?? 0) ? incoming : held;
}

export class LocalStore {
  /** Opens (creating when new) the store of user `userId` on this server. */
  static async open(userId) {
    const request = indexedDB.open(`parley-${location.host}-${userId}`, VERSION);
    request.onupgradeneeded = () => {
      const db = request.result;
      db.createObjectStore('kv');
      db.createObjectStore('conversations', { keyPath: 'id' });
      db.createObjectStore('messages', { keyPath: ['conversationId', 'seq'] });
      const outbox = db.createObjectStore('outbox', { keyPath: 'clientMsgId' });
      outbox.createIndex('order', 'order');
      db.createObjectStore('users', { keyPath: 'id' });
    };
    return new LocalStore(await promised(request));
  }

  constructor(db) {
    this.db = db;
  }

  close() {
    this.db.close();
  }

  async get(storeName, key) {
    return promised(this.db.transaction(storeName).objectStore(storeName).get(key));
  }

  async all(storeName) {
    return promised(this.db.transaction(storeName).objectStore(storeName).getAll());
  }

  async put(storeName, value, key) {
    const transaction = this.db.transaction(storeName, 'readwrite');
    transaction.objectStore(storeName).put(value, key);
    return finished(transaction);
  }

  async delete(storeName, key) {
    const transaction = this.db.transaction(storeName, 'readwrite');
    transaction.objectStore(storeName).delete(key);
    return finished(transaction);
  }

  /** The messages held of one conversation with seq in [from, to], ascending. */
  async messages(conversationId, from = 1, to = Number.MAX_SAFE_INTEGER) {
    const range = IDBKeyRange.bound([conversationId, from], [conversationId, to]);
    return promised(this.db.transaction('messages').objectStore('messages').getAll(range));
  }

  /** The seqs held of one conversation in [from, to], ascending. */
  async heldSeqs(conversationId, from, to) {
    const range = IDBKeyRange.bound([conversationId, from], [conversationId, to]);
    const keys = await promised(this.db.transaction('messages').objectStore('messages').getAllKeys(range));
    return keys.map((key) => key[1]);
  }

  /**
   * Stores messages, each kept in its newest form, and answers those that changed what
   * is held (new seqs, or a newer form).
   */
  async storeMessages(messages) {
    if (messages.length === 0) return [];
    const transaction = this.db.transaction('messages', 'readwrite');
    const store = transaction.objectStore('messages');
    const changed = [];
    for (const message of messages) {
      const request = store.get([message.conversationId, message.seq]);
      request.onsuccess = () => {
        const kept = newerForm(request.result, message);
        if (kept !== request.result) {
          store.put(kept);
          changed.push(kept);
        }
      };
    }
    await finished(transaction);
    return changed;
  }

  /**
   * Applies one sync page in one transaction: the conversations (watermarks merged with
   * max), then the cursor, so a reload never holds a cursor past what it stored.
   */
  async applySyncPage(conversations, cursor) {
    const transaction = this.db.transaction(['conversations', 'kv'], 'readwrite');
    const store = transaction.objectStore('conversations');
    for (const conversation of conversations) {
      const request = store.get(conversation.id);
      request.onsuccess = () => store.put(mergeConversation(request.result, conversation));
    }
    transaction.objectStore('kv').put(cursor, 'cursor');
    await finished(transaction);
  }

  /** Upserts conversations (a detail fetched, a watermark pushed), merging as a sync page does. */
  async mergeConversations(conversations) {
    const transaction = this.db.transaction('conversations', 'readwrite');
    const store = transaction.objectStore('conversations');
    for (const conversation of conversations) {
      const request = store.get(conversation.id);
      request.onsuccess = () => store.put(mergeConversation(request.result, conversation));
    }
    await finished(transaction);
  }

  /**
   * Records a send the server acknowledged: the message stored (in its newest form) and
   * its outbox entry gone, in one transaction, so it is never shown twice nor lost.
   */
  async commitSent(message) {
    const transaction = this.db.transaction(['messages', 'outbox'], 'readwrite');
    const messages = transaction.objectStore('messages');
    const request = messages.get([message.conversationId, message.seq]);
    request.onsuccess = () => messages.put(newerForm(request.result, message));
    transaction.objectStore('outbox').delete(message.clientMsgId);
    await finished(transaction);
  }

  /** The outbox in the order the user wrote its messages. */
  async outbox() {
    return promised(this.db.transaction('outbox').objectStore('outbox').index('order').getAll());
  }
}

/** A conversation as held, with a newer summary applied: watermarks only grow. */
export function mergeConversation(held, incoming) {
  if (!held) return incoming;
  const merged = { ...held, ...incoming };
  for (const field of ['maxSeq', 'readSeq', 'othersReadSeq', 'othersDeliveredSeq']) {
    merged[field] = Math.max(held[field] ?? 0, incoming[field] ?? 0);
  }
  merged.unreadCount = Math.max(0, merged.maxSeq - merged.readSeq);
  if (held.lastMessage && incoming.lastMessage) {
    if (held.lastMessage.seq > incoming.lastMessage.seq) merged.lastMessage = held.lastMessage;
    else if (held.lastMessage.seq === incoming.lastMessage.seq) merged.lastMessage = newerForm(held.lastMessage, incoming.lastMessage);
  }
  return merged;
}
