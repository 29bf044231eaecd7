// What the app keeps for the next visit, in the browser's localStorage. A browser may refuse it
// (some private modes, a full disk, storage turned off); then the setting holds for this page only.

/** The text kept under `key`; null when there is none, `whenRefused` when storage is refused. */
export function kept(key, whenRefused = null) {
  try { return localStorage.getItem(key); } catch { return whenRefused; }
}

/** Keeps `text` under `key`; false when storage refuses it. */
export function keep(key, text) {
  try { localStorage.setItem(key, text); return true; } catch { return false; }
}

/** Forgets what is kept under `key`. */
export function forget(key) {
  try { localStorage.removeItem(key); } catch { /* refused: nothing is kept either */ }
}
