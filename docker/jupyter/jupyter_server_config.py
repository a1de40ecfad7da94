# Jupyter server configuration of the course lab: `make lab` copies it into .lab/config, the
# image into the venv's etc/jupyter (so JupyterHub's single-user servers get it too), and the
# browser tests run with it. Command-line flags still override it.
#
#   COURSE_KERNEL_IDLE_TIMEOUT  seconds after which an idle kernel is stopped (default 1800);
#                               0 turns culling off
import os

c = get_config()  # noqa: F821 (defined by Jupyter when it loads this file)

# The course offers one kernel, GoNB. ipykernel comes with JupyterLab's dependencies, but a
# Python 3 tile in the launcher is a wrong turn for a learner of this course. (jupyter_config.json
# beside this file also stops `jupyter kernelspec list` from adding ipykernel's spec.)
c.KernelSpecManager.ensure_native_kernel = False
c.KernelSpecManager.allowed_kernelspecs = {"gonb"}
c.MappingKernelManager.default_kernel_name = "gonb"

# A light lab on 2 cores: every GoNB kernel runs gopls beside it. Idle kernels are stopped,
# also while their notebook is open (cull_connected); running a cell then starts a new one.
idle = int(os.environ.get("COURSE_KERNEL_IDLE_TIMEOUT", "1800"))
if idle > 0:
    c.MappingKernelManager.cull_idle_timeout = idle
    c.MappingKernelManager.cull_interval = max(1, min(60, idle // 4))
    c.MappingKernelManager.cull_connected = True
    c.MappingKernelManager.cull_busy = False

# Opening or restoring a notebook starts no kernel by itself: the course's lab extension
# (coursekit-jupyterlab, light-lab plugin) starts the kernel of the notebook in view. So a
# restored workspace with many tabs does not start a kernel per tab.
c.LabApp.notebook_starts_kernel = False
