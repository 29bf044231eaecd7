// Photos dropped on the canvas or picked: checked (PNG or JPEG, within the server's limits), then
// downscaled to at most 1024 px on the longer side and kept as a JPEG data: URL, so that the
// autosave in the browser's storage stays small. That same JPEG is what POST /api/photo gets.

import { t } from "./i18n.js";

/** The largest photo taken, as the server's (PhotoLimits): bytes of the file, pixels of the image. */
export const PHOTO_LIMITS = { bytes: 12 * 1024 * 1024, pixels: 50 * 1000 * 1000 };
const LONGER_SIDE = 1024;
const QUALITY = 0.85;

/** Whether bytes start like a PNG or a JPEG file. */
function isPNGOrJPEG(b) {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((v, i) => b[i] === v);
  return png || (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff);
}

/** The image element of a file, loaded (its size known, not necessarily decoded). */
function loadImage(file) {
  const url = URL.createObjectURL(file);
  const img = new Image();
  return new Promise((resolve, reject) => {
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error(t("photo.unreadable")));
    img.src = url;
  }).finally(() => URL.revokeObjectURL(url));
}

const blobOf = (canvas) => new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error(t("photo.noJPEG")))), "image/jpeg", QUALITY));

const dataURLOf = (blob) => new Promise((resolve, reject) => {
  const reader = new FileReader();
  reader.onload = () => resolve(reader.result);
  reader.onerror = () => reject(new Error(t("photo.notKept")));
  reader.readAsDataURL(blob);
});

/**
 * Reads a photo file: {src (JPEG data: URL), blob (the same JPEG), width, height}. Throws an Error
 * saying why (for the person) when the file is not a PNG or JPEG, too large or can't be read.
 */
export async function readPhoto(file) {
  const mib = PHOTO_LIMITS.bytes / 1024 / 1024;
  if (file.size > PHOTO_LIMITS.bytes) throw new Error(t("photo.tooLarge", { size: mib }));
  if (!isPNGOrJPEG(new Uint8Array(await file.slice(0, 8).arrayBuffer()))) throw new Error(t("photo.notPhoto"));
  const img = await loadImage(file);
  const w = img.naturalWidth, h = img.naturalHeight;
  if (w * h > PHOTO_LIMITS.pixels) throw new Error(t("photo.tooManyPixels", { count: PHOTO_LIMITS.pixels / 1e6 }));
  const scale = Math.min(1, LONGER_SIDE / Math.max(w, h));
  const canvas = document.createElement("canvas");
  canvas.width = Math.max(1, Math.round(w * scale));
  canvas.height = Math.max(1, Math.round(h * scale));
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#ffffff";   // JPEG has no transparency: a PNG's goes white, as on the canvas
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  // The browser turns the photo by its EXIF orientation as it draws it, so the JPEG stands upright.
  ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
  const blob = await blobOf(canvas);
  return { src: await dataURLOf(blob), blob, width: canvas.width, height: canvas.height };
}
