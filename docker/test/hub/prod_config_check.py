"""docker/jupyterhub_config.py without any COURSEHUB_TEST_* variable: the production settings
load and name importable classes (NativeAuthenticator, no open sign-up, DockerSpawner, a loopback
public URL). Run by docker/test/test-hub.sh; the test hub itself runs the same file with the test
authenticator."""
import os, sys
from traitlets.config.loader import PyFileConfigLoader
from traitlets.utils.importstring import import_item
os.environ.pop("COURSEHUB_TEST_USER_PASSWORD", None)
os.environ["COURSEHUB_HUB_IP"] = "127.0.0.1"  # no engine needed to read the file
cfg = PyFileConfigLoader(os.path.basename(sys.argv[1]), path=os.path.dirname(sys.argv[1])).load_config()
auth = cfg.JupyterHub.authenticator_class
cls = import_item(auth)
assert auth == "nativeauthenticator.NativeAuthenticator" and cfg.NativeAuthenticator.open_signup is False, (auth, cfg.NativeAuthenticator)
assert cfg.JupyterHub.bind_url.startswith("http://127.0.0.1:"), cfg.JupyterHub.bind_url
assert cfg.JupyterHub.spawner_class == "dockerspawner.DockerSpawner"
import_item(cfg.JupyterHub.spawner_class)
print(f"   production settings: {cls.__module__}.{cls.__name__} (open_signup off), admins {sorted(cfg.Authenticator.admin_users)}, public URL {cfg.JupyterHub.bind_url}")
