// Files: uploading by the protocol of docs/protocol.md, "Files" (declare the SHA-256 first,
// so content the server holds is sent at once; else chunks, each with its digest, skipping
// those the server has, then complete), image sizes and thumbnails made in the browser, and
// signed links for <img src>, which cannot carry a token.

const THUMBNAIL_EDGE = 320;
/** Signed links last an hour; one is used for at most this long. */
const LINK_REUSE = 45 * 60_000;

function hex(buffer) {
  return [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

function base64(buffer) {
  let text = '';
  for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
  return btoa(text);
}

function covered(ranges, start, end) {
  return ranges.some((range) => range.start <= start && range.end >= end);
}

/**
 * Uploads a Blob as a file of `kind` and answers its FileInfo; `onProgress` hears the
 * fraction sent. Chunks the server already has (an upload resumed) are not sent again.
 */
export async function upload(api, blob, { name, kind, onProgress = () => {} }) {
  if (!crypto.subtle) throw new Error('Sending files needs a secure page: open Parley over https.');
  const bytes = await blob.arrayBuffer();
  const sha256 = hex(await crypto.subtle.digest('SHA-256', bytes));
  const started = await api.post('/v1/uploads', {
    sha256, size: bytes.byteLength, name: name.slice(0, 255), kind,
    // "audio/webm;codecs=opus" is declared as "audio/webm": the server takes type/subtype.
    mimeType: (blob.type || 'application/octet-stream').split(';')[0].trim(),
  });
  if (started.file) {
    onProgress(1);
    return started.file;
  }
  let status = started.upload;
  for (let offset = 0; offset < status.size; offset += status.chunkSize) {
    const end = Math.min(status.size, offset + status.chunkSize);
    if (!covered(status.received, offset, end)) {
      const chunk = bytes.slice(offset, end);
      const digest = base64(await crypto.subtle.digest('SHA-256', chunk));
      status = await api.request('PUT', `/v1/uploads/${status.uploadId}/chunks/${offset}`, chunk, {
        'Content-Digest': `sha-256=:${digest}:`,
      });
    }
    onProgress(end / status.size);
  }
  return api.post(`/v1/uploads/${status.uploadId}/complete`);
}

/** An image's size and a smaller JPEG of it (none when it is small already). */
export async function describeImage(blob) {
  const bitmap = await createImageBitmap(blob);
  const { width, height } = bitmap;
  const scale = THUMBNAIL_EDGE / Math.max(width, height);
  let thumbnail = null;
  if (scale < 1) {
    const canvas = document.createElement('canvas');
    canvas.width = Math.max(1, Math.round(width * scale));
    canvas.height = Math.max(1, Math.round(height * scale));
    canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    thumbnail = await new Promise((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.8));
  }
  bitmap.close();
  return { width, height, thumbnail };
}

/** Signed download links by file id, fetched once and reused while fresh. */
export class FileLinks {
  constructor(api) {
    this.api = api;
    this.links = new Map();
  }

  async url(fileId) {
    const held = this.links.get(fileId);
    if (held && Date.now() - held.at < LINK_REUSE) return held.url;
    const link = await this.api.post(`/v1/files/${encodeURIComponent(fileId)}/links`);
    this.links.set(fileId, { url: link.url, at: Date.now() });
    return link.url;
  }
}
