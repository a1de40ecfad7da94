# Example JupyterHub configuration for a class using the course image (a sketch to adapt, not run
# by the tests). Each learner gets their own container from the image, started with
# `jupyterhub-singleuser` (installed in the image), and their own named volume for their work.
#
#   docker build -f docker/Dockerfile -t llmperf-course-lab:latest .      # on the hub's Docker host
#   pip install jupyterhub dockerspawner                                   # on the hub
#   jupyterhub -f docker/jupyterhub_config.py
#
# Kernel, Go caches and course files live outside the home dir (/usr/local/share/jupyter,
# /opt/coursekit, /opt/course), so the per-learner volume hides none of them, and cells run
# with no network access (GOPROXY=off, caches warmed in the image).

c = get_config()  # noqa: F821 (provided by JupyterHub)

# --- Spawner: one container per learner from the course image -----------------------------
c.JupyterHub.spawner_class = "dockerspawner.DockerSpawner"
c.DockerSpawner.image = "llmperf-course-lab:latest"
# The image's entrypoint seeds /home/learner/work with the course notebooks on first start,
# then runs the command JupyterHub gives it (jupyterhub-singleuser).
c.DockerSpawner.cmd = ["jupyterhub-singleuser"]
c.DockerSpawner.notebook_dir = "/home/learner/work"
c.DockerSpawner.default_url = "/lab"
# One named volume per learner; it survives container restarts and image rebuilds.
c.DockerSpawner.volumes = {"llmperf-course-{username}": "/home/learner/work"}
c.DockerSpawner.remove = True            # containers are disposable; the volume keeps the work
# Optional: no internet for learner containers (the image works offline). They still have to
# reach the hub, so use an internal Docker network that the hub container also joins:
#   docker network create --internal course-internal
# c.DockerSpawner.network_name = "course-internal"
# Per-learner limits on a shared host (2 cores here were enough for one learner's Go builds):
c.DockerSpawner.cpu_limit = 2
c.DockerSpawner.mem_limit = "2G"

# --- Hub networking: containers reach the hub by its container/host name -------------------
c.JupyterHub.hub_ip = "0.0.0.0"
# c.JupyterHub.hub_connect_ip = "jupyterhub"   # when the hub itself runs in a container

# --- Authentication: pick one suited to the class (the default PAM one needs system users) --
# c.JupyterHub.authenticator_class = "oauthenticator.GitHubOAuthenticator"
# c.JupyterHub.authenticator_class = "nativeauthenticator.NativeAuthenticator"
c.Authenticator.allowed_users = {"alice", "bob"}
c.Authenticator.admin_users = {"teacher"}

# --- Idle learners: stop their containers (work stays in the volume) -----------------------
# pip install jupyterhub-idle-culler
# c.JupyterHub.services = [{
#     "name": "idle-culler",
#     "command": ["python3", "-m", "jupyterhub_idle_culler", "--timeout=3600"],
# }]
# c.JupyterHub.load_roles = [{
#     "name": "idle-culler",
#     "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
#     "services": ["idle-culler"],
# }]
