// Forwarding: a dialog that lists my chats; the chosen one gets a copy of the message.

import { fill, h, panel } from './dom.js';
import { previewOf } from './format.js';

export class ForwardDialog {
  constructor(client) {
    this.client = client;
    this.message = null;
    this.quote = h('p', { class: 'preview' });
    this.list = h('ul', { class: 'people', id: 'forward-targets' });
    this.error = h('p', { class: 'form-error', role: 'alert' });
    this.element = panel('forward', 'Forward to…', 'Cancel', this.quote, this.error, this.list);
  }

  open(message) {
    this.message = message;
    this.error.textContent = '';
    this.quote.textContent = previewOf(message, this.client);
    const targets = [...this.client.conversations.values()].filter((c) => !c.removed && !c.group?.dissolvedAt);
    fill(this.list, targets.map((conversation) => h('li', {},
      h('button', {
        type: 'button', class: 'conversation', 'data-forward-to': conversation.id,
        onclick: () => this.forward(conversation.id),
      }, h('span', { class: 'title' }, this.client.titleOf(conversation))))));
    this.element.showModal();
  }

  async forward(conversationId) {
    try {
      await this.client.forward(this.message, conversationId);
      this.element.close();
    } catch (error) {
      this.error.textContent = error.message;
    }
  }
}
