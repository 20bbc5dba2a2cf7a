#!/usr/bin/env bash
# Makes sure the local PostgreSQL and Redis that the integration tests use are running.
set -uo pipefail

wait_for () { # name, check command
  for _ in $(seq 1 30); do
    if eval "$2" >/dev/null 2>&1; then echo "$1 is up"; return 0; fi
    sleep 1
  done
  echo "$1 did not come up" >&2
  return 1
}

if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  echo "starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
fi
wait_for PostgreSQL "pg_isready -q -h 127.0.0.1 -p 5432" || exit 1

if ! redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG; then
  echo "starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
wait_for Redis "redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG" || exit 1
