# shellcheck shell=bash
# The embedded Neo4j launcher (test/support/neo4j): a jar with its runtime classpath, built with Maven, and an AppCDS
# archive for a faster JVM start. Sourced by scripts/install-test-deps.sh and scripts/dev-server.sh; idempotent.

# The JVM flags of every launcher start; the AppCDS archive is only used by a JVM started with the same flags
# (test/support/neo4j.ts passes them too).
PKS_NEO4J_JVM_FLAGS=(-Xlog:disable -Xlog:all=error:stderr -Xms512m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1
  --add-opens=java.base/java.nio=ALL-UNNAMED)

# pks_neo4j_launcher ROOT: builds ROOT/test/support/neo4j/target/neo4j-launcher.jar when it is missing or older than
# its sources (`mvn package`), then trains its AppCDS archive on one start-up when that is missing or older than the
# jar. Progress goes to stderr; returns non-zero when Java or Maven is missing or the build fails.
pks_neo4j_launcher() {
  local n4j="$1/test/support/neo4j" jar jsa port home
  jar="$n4j/target/neo4j-launcher.jar"
  jsa="$n4j/target/neo4j.jsa"
  command -v java >/dev/null 2>&1 || { echo "neo4j: no java on PATH" >&2; return 1; }
  if [ ! -f "$jar" ] || [ ! -d "$n4j/target/lib" ] || [ -n "$(find "$n4j/pom.xml" "$n4j/src" -newer "$jar" -print -quit)" ]; then
    command -v mvn >/dev/null 2>&1 || { echo "neo4j: no mvn on PATH (Maven builds the Neo4j launcher)" >&2; return 1; }
    echo "neo4j: building the Neo4j launcher (mvn package, once)" >&2
    # (sed drops the stray colour resets Debian's Maven 3.8 prints even in batch mode)
    mvn -q -B -f "$n4j/pom.xml" package 2>&1 | sed 's/\x1b\[0m//g' >&2
    [ "${PIPESTATUS[0]}" = 0 ] && [ -f "$jar" ] || { echo "neo4j: mvn package failed" >&2; return 1; }
    touch "$jar"
  fi
  if [ ! -f "$jsa" ] || [ "$jar" -nt "$jsa" ]; then
    echo "neo4j: creating the Neo4j AppCDS archive (one start-up, once)" >&2
    rm -f "$jsa"
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    home="$(mktemp -d)"
    if ! java -XX:ArchiveClassesAtExit="$jsa" "${PKS_NEO4J_JVM_FLAGS[@]}" \
      -jar "$jar" "$port" "$home" --exit-when-ready </dev/null >"$home/out.log" 2>&1; then
      echo "neo4j: warning: AppCDS training run failed; Neo4j will start without it" >&2
      cat "$home/out.log" >&2
      rm -f "$jsa"
    fi
    rm -rf "$home"
  fi
}
