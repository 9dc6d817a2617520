// The web client's service worker: it keeps the client's own files (/ and /static/) so
// the app opens offline, and nothing else: never the API, never another origin. The
// server puts VERSION (its release) and SHELL (the client's files) above these lines,
// so a new release is a new worker with a cache of its own; the old cache goes.
//
// Network first: the newest files whenever the server answers, the kept copy otherwise.

const CACHE = `scopa-shell-${VERSION}`;
const OWN = /^\/(static\/(?!swagger\/).*)?$/;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name.startsWith("scopa-shell-") && name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

async function networkFirst(request) {
  const cache = await caches.open(CACHE);
  try {
    const answer = await fetch(request);
    if (answer.ok && answer.type === "basic") await cache.put(request, answer.clone());
    return answer;
  } catch (failure) {
    const kept = await cache.match(request, { ignoreSearch: true });
    if (kept) return kept;
    throw failure;
  }
}

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin || !OWN.test(url.pathname)) return;
  event.respondWith(networkFirst(event.request));
});
