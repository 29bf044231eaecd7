// The service worker: keeps the app shell (the page, its modules, styles and icons) so that the
// app opens without the server, with the autosaved drawing and the offline banner; recognition
// comes back with the server. The app's own files go to the network first and the answer is
// kept; without a network the kept copy answers. The API (/api/…) is never kept.

const SHELL = "sketchwise-shell";

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

// The page tells which files it loaded (offline.js): they are kept at once, since they were
// fetched before this worker controlled the page.
self.addEventListener("message", (event) => {
  const urls = (event.data && Array.isArray(event.data.keep) ? event.data.keep : []).filter(isShell);
  event.waitUntil(caches.open(SHELL).then((cache) => Promise.all(urls.map((url) => cache.add(url).catch(() => {})))));
});

self.addEventListener("fetch", (event) => {
  const { request } = event;
  if (request.method !== "GET" || !isShell(request.url)) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          event.waitUntil(caches.open(SHELL).then((cache) => cache.put(request, copy)));
        }
        return response;
      })
      .catch(() => caches.match(request, { ignoreSearch: true }).then((kept) => kept || offlinePage(request))),
  );
});

/** Whether a URL is one of the app's own files (same origin, not the API). */
function isShell(url) {
  const parsed = new URL(url, self.location.href);
  return parsed.origin === self.location.origin && !parsed.pathname.startsWith("/api/");
}

/** A navigation without a kept copy of its own gets the kept page; anything else fails. */
function offlinePage(request) {
  if (request.mode !== "navigate") return Response.error();
  return caches.match(new URL("./", self.location.href).href).then((page) => page || Response.error());
}
