// Voice messages recorded in the browser (MediaRecorder), at most 60 s, the server's
// default limit: the first press records, the second stops and sends.

import { h } from './dom.js';

const LIMIT_MS = 60_000;

export class VoiceRecorder {
  constructor({ onDone, onError }) {
    this.onDone = onDone;
    this.onError = onError;
    this.recorder = null;
    this.button = h('button', {
      type: 'button', class: 'ghost', id: 'record', 'aria-label': 'Record a voice message', 'aria-pressed': 'false',
      onclick: () => (this.recorder ? this.stop() : this.start()),
    }, '🎤');
  }

  async start() {
    if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') {
      this.onError('This browser cannot record sound here (it needs a secure page: https).');
      return;
    }
    let stream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch {
      this.onError('Parley may not use the microphone: allow it in the browser to record.');
      return;
    }
    const type = MediaRecorder.isTypeSupported('audio/webm') ? 'audio/webm' : '';
    const recorder = new MediaRecorder(stream, type ? { mimeType: type } : {});
    const chunks = [];
    const started = performance.now();
    recorder.ondataavailable = (event) => chunks.push(event.data);
    recorder.onstop = () => {
      stream.getTracks().forEach((track) => track.stop());
      const durationMs = Math.min(LIMIT_MS, performance.now() - started);
      this.onDone(new Blob(chunks, { type: recorder.mimeType || 'audio/webm' }), durationMs);
    };
    recorder.start();
    this.recorder = recorder;
    this.timer = setInterval(() => {
      const seconds = Math.floor((performance.now() - started) / 1000);
      this.button.textContent = `■ ${seconds} s`;
      if (performance.now() - started >= LIMIT_MS) this.stop();
    }, 250);
    this.button.textContent = '■ 0 s';
    this.button.setAttribute('aria-pressed', 'true');
    this.button.setAttribute('aria-label', 'Stop recording and send');
  }

  stop() {
    clearInterval(this.timer);
    this.recorder?.stop();
    this.recorder = null;
    this.button.textContent = '🎤';
    this.button.setAttribute('aria-pressed', 'false');
    this.button.setAttribute('aria-label', 'Record a voice message');
  }
}
