/** The page's places: `#/` the run (or the comparison), `#/i/<id>` one instance, `#/a/<arm>/i/<id>` one instance of a comparison's arm. */
export type Route =
  | { readonly view: "run" }
  | { readonly view: "instance"; readonly id: string }
  | { readonly view: "arm-instance"; readonly arm: string; readonly id: string };

export const routeOf = (hash: string): Route => {
  const arm = /^#\/a\/([^/]+)\/i\/(.+)$/.exec(hash);
  if (arm) return { view: "arm-instance", arm: decodeURIComponent(arm[1]!), id: decodeURIComponent(arm[2]!) };
  const m = /^#\/i\/(.+)$/.exec(hash);
  return m ? { view: "instance", id: decodeURIComponent(m[1]!) } : { view: "run" };
};

export const instanceHash = (id: string): string => `#/i/${encodeURIComponent(id)}`;

export const armInstanceHash = (arm: string, id: string): string =>
  `#/a/${encodeURIComponent(arm)}/i/${encodeURIComponent(id)}`;

export const go = (hash: string): void => {
  window.location.hash = hash;
};
