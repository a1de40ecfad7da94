// The application object, handed over by the light-lab plugin (an ordinary plugin gets it in
// activate) to the renderers (a MIME renderer extension does not): one module of this
// extension's bundle, shared by both.
let app = null;

export function setApp(a) {
  app = a;
}

export function getApp() {
  return app;
}
