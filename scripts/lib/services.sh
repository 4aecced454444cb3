# The stores the test suite runs against, on loopback ports, all under $SERVICES_DIR:
# Redis standalone with a replica of it (replica reads), a 3-master Redis Cluster, a 3-master + 3-replica Redis Cluster (the fleet
# test's, which kills and restarts its nodes), PostgreSQL, and a second PostgreSQL the fleet test
# restarts. Sourced by scripts/test.

SERVICES_DIR="${LAUREL_TEST_SERVICES_DIR:-/tmp/laurel-test-services-$(id -u)}"
REDIS_PORT="${LAUREL_TEST_REDIS_PORT:-16379}"
REPLICA_PORT="${LAUREL_TEST_REDIS_REPLICA_PORT:-16380}"
read -ra CLUSTER_PORTS <<<"${LAUREL_TEST_CLUSTER_PORTS:-17101 17102 17103}"
read -ra REPLICATED_PORTS <<<"${LAUREL_TEST_REPLICATED_PORTS:-17201 17202 17203 17204 17205 17206}"
PG_PORT="${LAUREL_TEST_PG_PORT:-15432}"
FLEET_PG_PORT="${LAUREL_TEST_FLEET_PG_PORT:-15433}"

start_services() {
  stop_services # a previous run that was killed may have left its servers behind
  rm -rf "$SERVICES_DIR"
  mkdir -p "$SERVICES_DIR"

  log "starting Redis standalone on 127.0.0.1:$REDIS_PORT"
  start_redis "$REDIS_PORT" "$SERVICES_DIR/redis" --save "" --appendonly no
  log "starting its replica on 127.0.0.1:$REPLICA_PORT"
  start_redis "$REPLICA_PORT" "$SERVICES_DIR/replica" --save "" --appendonly no \
    --replicaof 127.0.0.1 "$REDIS_PORT"
  wait_for 30 sh -c "redis-cli -p $REPLICA_PORT info replication | grep -q master_link_status:up" \
    || die "the replica on $REPLICA_PORT did not connect to its master"

  log "starting a 3-master Redis Cluster on 127.0.0.1:${CLUSTER_PORTS[*]}"
  local nodes=()
  for port in "${CLUSTER_PORTS[@]}"; do
    start_redis "$port" "$SERVICES_DIR/cluster-$port" --save "" --appendonly no \
      --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000
    nodes+=("127.0.0.1:$port")
  done
  redis-cli --cluster create "${nodes[@]}" --cluster-replicas 0 --cluster-yes >"$SERVICES_DIR/cluster-create.log" 2>&1 \
    || die "redis cluster create failed (see $SERVICES_DIR/cluster-create.log)"
  for port in "${CLUSTER_PORTS[@]}"; do
    wait_for 30 sh -c "redis-cli -p $port cluster info | grep -q cluster_state:ok" \
      || die "the cluster did not reach cluster_state:ok on $port"
  done

  start_replicated_cluster

  log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
  start_postgres "$PG_PORT" "$SERVICES_DIR/pg" -c fsync=off
  log "starting the fleet test's PostgreSQL on 127.0.0.1:$FLEET_PG_PORT"
  start_postgres "$FLEET_PG_PORT" "$SERVICES_DIR/pg-fleet" -c fsync=off
  # Only the fleet test uses this server: it restarts it under load (immediate mode, as a crash).
  export LAUREL_TEST_FLEET_POSTGRES_URL="postgres://postgres@127.0.0.1:$FLEET_PG_PORT/postgres"
  export LAUREL_TEST_FLEET_POSTGRES_RESTART
  LAUREL_TEST_FLEET_POSTGRES_RESTART="$(as_postgres_prefix)$(postgres_bindir)/pg_ctl -D $SERVICES_DIR/pg-fleet/data -l $SERVICES_DIR/pg-fleet/server.log -m immediate -w restart"

  export LAUREL_TEST_REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
  export LAUREL_TEST_REDIS_REPLICA_URL="redis://127.0.0.1:$REPLICA_PORT"
  export LAUREL_TEST_REDIS_CLUSTER_URL
  LAUREL_TEST_REDIS_CLUSTER_URL="$(printf 'redis://%s,' "${nodes[@]}")"
  LAUREL_TEST_REDIS_CLUSTER_URL="${LAUREL_TEST_REDIS_CLUSTER_URL%,}"
  export LAUREL_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
}

# A Cluster of 3 masters with one replica each, for the test that kills a master (its replica
# takes over within cluster-node-timeout) and restarts nodes empty; only that test may use it.
# Exports LAUREL_TEST_REDIS_REPLICATED_URL, the six nodes. Stopped by stop_services.
start_replicated_cluster() {
  [ "${#REPLICATED_PORTS[@]}" = 6 ] || die "LAUREL_TEST_REPLICATED_PORTS must name 6 ports"
  log "starting a 3+3 Redis Cluster on 127.0.0.1:${REPLICATED_PORTS[*]}"
  local nodes=() port
  for port in "${REPLICATED_PORTS[@]}"; do
    start_redis "$port" "$SERVICES_DIR/replicated-$port" --save "" --appendonly no \
      --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000
    nodes+=("127.0.0.1:$port")
  done
  redis-cli --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes \
    >"$SERVICES_DIR/replicated-create.log" 2>&1 \
    || die "redis cluster create (3+3) failed (see $SERVICES_DIR/replicated-create.log)"
  for port in "${REPLICATED_PORTS[@]}"; do
    wait_for 30 sh -c "redis-cli -p $port cluster info | grep -q cluster_state:ok" \
      || die "the 3+3 cluster did not reach cluster_state:ok on $port"
  done
  # A replica is ready once its first sync is done: the master link up and no sync in progress.
  for port in "${REPLICATED_PORTS[@]}"; do
    redis-cli -p "$port" info replication | grep -q '^role:slave' || continue
    wait_for 30 sh -c "redis-cli -p $port info replication | tr -d '\\r' \
      | grep -cx -e master_link_status:up -e master_sync_in_progress:0 | grep -qx 2" \
      || die "the replica on $port did not finish its sync"
  done
  export LAUREL_TEST_REDIS_REPLICATED_URL
  LAUREL_TEST_REDIS_REPLICATED_URL="$(printf 'redis://%s,' "${nodes[@]}")"
  LAUREL_TEST_REDIS_REPLICATED_URL="${LAUREL_TEST_REDIS_REPLICATED_URL%,}"
}

stop_services() {
  [ -d "$SERVICES_DIR" ] || return 0
  stop_postgres "$SERVICES_DIR/pg"
  stop_postgres "$SERVICES_DIR/pg-fleet"
  local f
  for f in "$SERVICES_DIR"/*/redis.pid; do stop_pidfile "$f"; done
}
