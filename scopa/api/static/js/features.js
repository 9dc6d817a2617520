// What this server offers beyond the first edition of the contract, read once from its
// published OpenAPI document, so a button or an option appears only where its route or
// request field exists. Fields of answers need no probe: the client looks at the answer.

const MATCH_ROUTE = /^\/v1\/matches\/\{[^}]+\}\/([a-z_]+)$/;
let features = null;

function resolve(doc, schema) {
  let s = schema;
  for (let i = 0; s && s.$ref && i < 20; i++) {
    s = s.$ref.split("/").slice(1).reduce((node, part) => node?.[part], doc);
  }
  return s || {};
}

/** Every alternative a schema may take (oneOf, anyOf, allOf), resolved. */
function variants(doc, schema) {
  const s = resolve(doc, schema);
  const parts = [...(s.oneOf || []), ...(s.anyOf || []), ...(s.allOf || [])];
  return parts.length ? parts.flatMap((p) => variants(doc, p)) : [s];
}

/** Whether a body of this schema may carry the dotted field (arrays step into items). */
function accepts(doc, schema, path) {
  if (!path.length) return true;
  return variants(doc, schema).some((s) => {
    if (s.type === "array" || s.items) return accepts(doc, s.items, path);
    const next = s.properties?.[path[0]];
    return next !== undefined && accepts(doc, next, path.slice(1));
  });
}

function describe(doc) {
  const paths = doc?.paths || {};
  const routes = new Set();
  for (const [path, operations] of Object.entries(paths)) {
    const m = MATCH_ROUTE.exec(path);
    if (m) for (const method of Object.keys(operations)) routes.add(`${method} ${m[1]}`);
  }
  const createBody = paths["/v1/matches"]?.post?.requestBody?.content?.["application/json"]?.schema;
  const createAccepts = (field) => Boolean(createBody) && accepts(doc, createBody, field.split("."));
  const statusParam = (paths["/v1/matches"]?.get?.parameters || [])
    .map((p) => resolve(doc, p))
    .find((p) => p.name === "status");
  return Object.freeze({
    resign: routes.has("post resign"),
    abort: routes.has("post abort"),
    rematch: routes.has("post rematch"),
    record: routes.has("get record"),
    review: routes.has("get review"),
    activeLobby: JSON.stringify(statusParam?.schema || {}).includes('"active"'),
    names: createAccepts("seats.name"),
    clock: createAccepts("rules.turn_seconds"),
    reveal: createAccepts("rules.reveal_ai_hands"),
    scopone: createAccepts("rules.deal"),
    version: doc?.info?.version || null,
  });
}

/** The server's features; the first-edition set when its document cannot be read. */
export async function loadFeatures(api) {
  if (!features) features = api.openapi().then(describe, () => describe(null));
  return features;
}

/** Shows each element marked data-feature="name" only when the server has that feature. */
export function showFeatures(found, root = document) {
  for (const el of root.querySelectorAll("[data-feature]")) el.hidden = !found[el.dataset.feature];
}
