"""Runs a binary of the runfiles (argv[1]) with no LD_LIBRARY_PATH and shows what it prints."""

import os
import subprocess
import sys

from runfiles import runfiles

path = runfiles.Create().Rlocation(sys.argv[1])
env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
proc = subprocess.run([path], env=env, capture_output=True, text=True)
sys.stdout.write(proc.stdout + proc.stderr)
sys.exit(proc.returncode)
