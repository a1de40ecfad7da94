// Keeps JupyterLab light on a small machine: a notebook starts its kernel only
// when it is the one in view.
//
// The lab runs with notebook_starts_kernel = False (see docker/jupyter), so
// opening or restoring a notebook does not start a kernel by itself; reopening
// a workspace with seven tabs would otherwise start seven Go kernels (each with
// its own gopls) at once. This plugin starts the notebook's own kernel (the one
// in its metadata) the first time the notebook becomes the current tab, and
// from then on lets JupyterLab start it again on demand (e.g. after an idle
// kernel was culled and a cell is run). A notebook that already has a running
// kernel (a page reload) just reconnects to it.
//
// Plain JavaScript with no JupyterLab imports: it uses only the application object and
// the notebook panel's session context, as JupyterLab hands them over. It also hands the
// application object to the course's renderers (app-ref.js), which need the notebook.
import { setApp } from './app-ref.js';

function isNotebookPanel(w) {
  return !!(w && w.sessionContext && w.content && w.content.model !== undefined && w.context);
}

async function startOwnKernel(panel) {
  const sc = panel.sessionContext;
  if (panel.__coursekitStarted || sc.isDisposed) return;
  panel.__coursekitStarted = true;
  // From now on this notebook behaves like any JupyterLab notebook: its kernel
  // (re)starts when needed.
  sc.kernelPreference = { ...sc.kernelPreference, shouldStart: true, autoStartDefault: true };
  await sc.ready;
  if (sc.isDisposed || sc.session?.kernel) return;
  await sc.startKernel();
}

const plugin = {
  id: 'coursekit-jupyterlab:light-lab',
  description: 'Starts a notebook kernel only when its notebook is in view.',
  autoStart: true,
  activate: (app) => {
    setApp(app);
    const shell = app.shell;
    const onCurrent = () => {
      const w = shell.currentWidget;
      if (isNotebookPanel(w)) {
        startOwnKernel(w).catch((e) => console.warn('coursekit: could not start the kernel', e));
      }
    };
    // While a workspace is restored every tab becomes current in turn: wait until it is done,
    // then start only the kernel of the tab left in view.
    app.restored.then(() => {
      if (shell.currentChanged) shell.currentChanged.connect(onCurrent);
      onCurrent();
    });
  },
};

export default plugin;
