# Sourced by the GPU training scripts: runs several trainings at once on one lent machine.

# run_side_by_side RUN LINES: for each line "NAME OPTIONS..." of LINES, runs `RUN NAME OPTIONS...`
# in the background with its output in $OUT/NAME.log; then waits for all, shows the end of each
# log, and fails when any of them failed.
run_side_by_side() {
  local run=$1 lines=$2 name options status=0
  local pids=() names=()
  while read -r name options; do
    # shellcheck disable=SC2086  # the options are words
    "$run" "$name" $options >"$OUT/$name.log" 2>&1 &
    pids+=($!)
    names+=("$name")
  done <<<"$lines"
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  for name in "${names[@]}"; do tail -n 3 "$OUT/$name.log"; done
  return $status
}
