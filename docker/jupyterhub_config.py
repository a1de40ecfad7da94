# JupyterHub for a class on one server: one container per learner from the course image,
# spawned by DockerSpawner through a Docker API (dockerd, or podman's `podman system service`),
# on an internal network with no route out. This is the configuration `make test-hub` runs
# (docker/test/test-hub.sh); everything the test changes comes from the COURSEHUB_* environment
# variables below, never from a second copy of this file.
#
#   podman build -f docker/Dockerfile -t llmperf-course-lab:latest .    # or docker build, or make test-image
#   podman network create --internal llmperf-course-internal            # learners: no route out
#   python3 -m venv hub && hub/bin/pip install -r docker/hub/requirements.txt
#   (cd docker/hub && npm ci)                                            # configurable-http-proxy
#   DOCKER_HOST=unix:///run/podman/podman.sock hub/bin/jupyterhub -f docker/jupyterhub_config.py
#
# Environment (defaults in brackets):
#   COURSEHUB_IMAGE            course image [llmperf-course-lab:latest]
#   COURSEHUB_PREFIX           names of containers and volumes: PREFIX-<user> [llmperf-course]
#   COURSEHUB_NETWORK          internal network the learners' containers join [llmperf-course-internal]
#   COURSEHUB_HUB_IP           address of the hub API, reachable from that network
#                              [the network's gateway, read from the engine: the hub runs on the host]
#   COURSEHUB_HUB_PORT         [8081]
#   COURSEHUB_BIND_URL         the hub's public URL [http://127.0.0.1:8000]: loopback; put a TLS
#                              reverse proxy in front of it for a class
#   COURSEHUB_PROXY_API_PORT   configurable-http-proxy's API port on 127.0.0.1 [8001]
#   COURSEHUB_CPU_LIMIT        CPUs per learner [1.5]; COURSEHUB_MEM_LIMIT memory per learner [1536M]
#                              (the sizing table in README says where these come from)
#   COURSEHUB_CULL_TIMEOUT     stop a server idle this many seconds [3600]; COURSEHUB_CULL_EVERY [300]
#   COURSEHUB_ACTIVITY_INTERVAL how often activity reaches the hub, seconds [300]
#   COURSEHUB_INSTRUCTORS      comma-separated admin users [teacher]
#   COURSEHUB_TEST_USER_PASSWORD, COURSEHUB_TEST_ADMIN_PASSWORD, COURSEHUB_LEARNERS
#                              TEST ONLY: JupyterHub's SharedPasswordAuthenticator for the listed
#                              learners and instructors instead of the production authenticator
#
# Kernel, Go caches and course files live outside the home dir (/usr/local/share/jupyter,
# /opt/coursekit, /opt/course), so the per-learner volume hides none of them, and cells run
# with no network access (GOPROXY=off, caches warmed in the image).
import os
import sys

c = get_config()  # noqa: F821 (provided by JupyterHub)
env = os.environ.get
here = os.path.dirname(os.path.abspath(__file__))

prefix = env("COURSEHUB_PREFIX", "llmperf-course")
network = env("COURSEHUB_NETWORK", "llmperf-course-internal")
work_dir = "/home/learner/work"
instructors = {u for u in env("COURSEHUB_INSTRUCTORS", "teacher").split(",") if u}


def network_gateway(name):
    """The gateway address of the engine's network NAME: the host's side of the bridge, the
    one address of the host the learners' containers can reach."""
    import docker

    import socket

    ipam = docker.from_env().networks.get(name).attrs.get("IPAM") or {}
    for cfg in ipam.get("Config") or []:
        if cfg.get("Gateway"):
            try:
                socket.create_server((cfg["Gateway"], 0)).close()
            except OSError as e:
                raise SystemExit(
                    f"jupyterhub_config: cannot listen on {cfg['Gateway']}, the gateway of network {name} ({e}). "
                    "Podman creates a network's bridge only while a container is attached: keep one running, e.g. "
                    f"`podman run -d --name {name}-anchor --network {name} --entrypoint sleep IMAGE infinity`"
                )
            return cfg["Gateway"]
    raise SystemExit(
        f"jupyterhub_config: network {name} has no gateway address; create it with "
        f"`podman network create --internal {name}` or set COURSEHUB_HUB_IP"
    )


# --- Spawner: one container per learner from the course image -----------------------------
c.JupyterHub.spawner_class = "dockerspawner.DockerSpawner"
c.DockerSpawner.image = env("COURSEHUB_IMAGE", "llmperf-course-lab:latest")
c.DockerSpawner.pull_policy = "ifnotpresent"
# The image's entrypoint seeds /home/learner/work with the course notebooks on first start,
# then runs the command JupyterHub gives it; the image's user is learner (uid 1000).
c.DockerSpawner.cmd = ["jupyterhub-singleuser"]
c.DockerSpawner.notebook_dir = work_dir
c.DockerSpawner.default_url = "/lab"
c.DockerSpawner.name_template = prefix + "-{username}"
# One named volume per learner; it survives culling, container removal and image rebuilds.
c.DockerSpawner.volumes = {prefix + "-{username}": work_dir}
c.DockerSpawner.remove = True  # containers are disposable; the volume keeps the work
# Learners sit on an internal network: no route out, only the hub (and the proxy) reach them.
c.DockerSpawner.network_name = network
c.DockerSpawner.use_internal_ip = True
# Per-learner limits, and nothing a notebook server needs beyond a plain user.
c.DockerSpawner.cpu_limit = float(env("COURSEHUB_CPU_LIMIT", "1.5"))
c.DockerSpawner.mem_limit = env("COURSEHUB_MEM_LIMIT", "1536M")
c.DockerSpawner.extra_host_config = {
    "pids_limit": 1024,
    "cap_drop": ["ALL"],
    "security_opt": ["no-new-privileges"],
}
activity = env("COURSEHUB_ACTIVITY_INTERVAL", "300")
c.DockerSpawner.environment = {"JUPYTERHUB_ACTIVITY_INTERVAL": activity}
# A loaded machine starts a container slowly; a too-short timeout would fail the spawn.
c.DockerSpawner.start_timeout = 300
c.DockerSpawner.http_timeout = 180

# --- Hub and proxy networking ---------------------------------------------------------------
c.JupyterHub.bind_url = env("COURSEHUB_BIND_URL", "http://127.0.0.1:8000")
c.JupyterHub.hub_ip = env("COURSEHUB_HUB_IP") or network_gateway(network)
c.JupyterHub.hub_port = int(env("COURSEHUB_HUB_PORT", "8081"))
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:" + env("COURSEHUB_PROXY_API_PORT", "8001")
# configurable-http-proxy pinned by docker/hub/package.json (`npm ci` there), else from PATH.
chp = os.path.join(here, "hub", "node_modules", ".bin", "configurable-http-proxy")
c.ConfigurableHTTPProxy.command = [chp if os.path.exists(chp) else "configurable-http-proxy"]
c.JupyterHub.last_activity_interval = int(activity)

# --- Authentication --------------------------------------------------------------------------
c.Authenticator.admin_users = instructors
if env("COURSEHUB_TEST_USER_PASSWORD"):
    # TEST ONLY (make test-hub): a shared password for the listed learners, another for admins.
    c.JupyterHub.authenticator_class = "shared-password"
    c.SharedPasswordAuthenticator.user_password = env("COURSEHUB_TEST_USER_PASSWORD")
    c.SharedPasswordAuthenticator.admin_password = env("COURSEHUB_TEST_ADMIN_PASSWORD", "")
    c.Authenticator.allowed_users = {u for u in env("COURSEHUB_LEARNERS", "").split(",") if u}
else:
    # Learners sign up with a password of their own; an instructor authorizes each account at
    # /hub/authorize. For a university login, use oauthenticator (e.g. GenericOAuthenticator).
    c.JupyterHub.authenticator_class = "nativeauthenticator.NativeAuthenticator"
    c.NativeAuthenticator.open_signup = False
    c.NativeAuthenticator.minimum_password_length = 10
    c.NativeAuthenticator.check_common_password = True
    c.Authenticator.allow_all = True  # every account an instructor has authorized

# --- Idle learners: stop their containers (the work stays in the volume) ---------------------
c.JupyterHub.services = [
    {
        "name": "idle-culler",
        "command": [
            sys.executable,  # the hub's Python, which has jupyterhub-idle-culler
            "-m",
            "jupyterhub_idle_culler",
            "--timeout=" + env("COURSEHUB_CULL_TIMEOUT", "3600"),
            "--cull-every=" + env("COURSEHUB_CULL_EVERY", "300"),
        ],
    }
]
c.JupyterHub.load_roles = [
    {
        "name": "idle-culler",
        "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
        "services": ["idle-culler"],
    }
]
