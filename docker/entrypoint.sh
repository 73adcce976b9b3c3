#!/bin/sh
# Meridian container entry point: one image, four processes.
#
#   web        REST API, admin console and health probes (default; listens on $PORT, 8080)
#   worker     BullMQ consumer (run profiles, deletions, housekeeping)
#   scheduler  schedule evaluation; run 2+ replicas, one leader (PostgreSQL advisory lock)
#   migrate    apply pending database migrations to $DATABASE_URL, then exit
#
# Anything else is executed as given, e.g. `docker run --rm -it <image> sh`.
# tini (PID 1) forwards signals; `exec` makes node the direct child so SIGTERM reaches it.
set -eu

# The application root is the parent of this script's directory (/app in the image).
cd "$(dirname "$0")/.."

process="${1:-web}"
[ "$#" -gt 0 ] && shift

case "$process" in
  web)       exec node apps/web/dist/main.js "$@" ;;
  worker)    exec node apps/worker/dist/main.js "$@" ;;
  scheduler) exec node apps/scheduler/dist/main.js "$@" ;;
  migrate)   exec node tools/migrate.js "$@" ;;
  -h|--help|help)
    echo "usage: <image> [web|worker|scheduler|migrate] (default: web), or any command" >&2
    exit 0 ;;
  *)         exec "$process" "$@" ;;
esac
