# Sourced by ./mvnw and ./egpu: makes JAVA_HOME point at a JDK 25 or newer, or stops with a message saying how to
# get one. Order: $JAVA_HOME if it is new enough, then the newest JDK under /usr/lib/jvm, then `java` on PATH.
# POSIX sh, because ./mvnw is.

egpu_jdk_major() { # prints the feature version of the JDK at $1, or nothing
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] && [ -f "$1/release" ] || return 0
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release"
}

egpu_find_jdk() {
  egpu_major=$(egpu_jdk_major "${JAVA_HOME:-/nonexistent}")
  if [ -n "$egpu_major" ] && [ "$egpu_major" -ge 25 ]; then
    return 0
  fi
  egpu_best="" egpu_best_major=0
  egpu_had_f=0; case $- in *f*) egpu_had_f=1; set +f;; esac
  for egpu_dir in /usr/lib/jvm/* /usr/local/lib/jvm/* /opt/java/* /opt/jdk*; do
    egpu_major=$(egpu_jdk_major "$egpu_dir")
    if [ -n "$egpu_major" ] && [ "$egpu_major" -ge 25 ] && [ "$egpu_major" -gt "$egpu_best_major" ]; then
      egpu_best=$egpu_dir egpu_best_major=$egpu_major
    fi
  done
  [ "$egpu_had_f" = 1 ] && set -f
  if [ -z "$egpu_best" ] && command -v java >/dev/null 2>&1; then
    egpu_dir=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    egpu_major=$(egpu_jdk_major "$egpu_dir")
    if [ -n "$egpu_major" ] && [ "$egpu_major" -ge 25 ]; then
      egpu_best=$egpu_dir
    fi
  fi
  if [ -z "$egpu_best" ]; then
    echo "Elastic GPU needs a JDK 25 or newer and found none (JAVA_HOME=${JAVA_HOME:-unset}, /usr/lib/jvm, PATH)." >&2
    echo "Install one (e.g. Eclipse Temurin 25) and set JAVA_HOME to it." >&2
    exit 1
  fi
  JAVA_HOME=$egpu_best
  export JAVA_HOME
}

egpu_find_jdk
