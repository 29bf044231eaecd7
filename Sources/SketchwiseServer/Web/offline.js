// The installable, offline app: registers the service worker (sw.js) and tells it which files
// this page loaded, so that the next visit opens without the server.

/** Registers sw.js where the browser allows it (a secure context: https or localhost). */
export async function keepAppShell() {
  if (!("serviceWorker" in navigator)) return;
  try {
    const registration = await navigator.serviceWorker.register("sw.js");
    await navigator.serviceWorker.ready;
    const loaded = performance.getEntriesByType("resource").map((entry) => entry.name);
    (registration.active || navigator.serviceWorker.controller)?.postMessage({ keep: [location.href.split("#")[0], ...loaded] });
  } catch {
    // Private mode or an insecure origin: the app works online as before.
  }
}
