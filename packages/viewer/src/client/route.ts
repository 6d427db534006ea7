/** The page's places: `#/` the run, `#/i/<id>` one instance. */
export type Route = { readonly view: "run" } | { readonly view: "instance"; readonly id: string };

export const routeOf = (hash: string): Route => {
  const m = /^#\/i\/(.+)$/.exec(hash);
  return m ? { view: "instance", id: decodeURIComponent(m[1]!) } : { view: "run" };
};

export const instanceHash = (id: string): string => `#/i/${encodeURIComponent(id)}`;

export const go = (hash: string): void => {
  window.location.hash = hash;
};
