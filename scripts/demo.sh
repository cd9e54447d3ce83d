#!/usr/bin/env bash
# Play the shipped demo games from start to finish through the real CLI.
# Usage: scripts/demo.sh PBEM_BINARY DB_PATH
set -euo pipefail
PBEM=${1:-pbem}
DB=${2:-build/demo.db}
cd "$(dirname "$0")/.."
mkdir -p "$(dirname "$DB")"
rm -f "$DB" "$DB-wal" "$DB-shm"
find turns -type d -name reports -prune -exec rm -rf {} +
export PBEM_DB="$DB"

echo "== GODS: game 'demo' for athena, odin and ra (orders in turns/demo/TURN/PLAYER.txt)"
"$PBEM" new gods demo --player athena --player odin --player ra --seed 2026
"$PBEM" status demo
"$PBEM" resolve demo
"$PBEM" status demo
"$PBEM" replay demo --verify
last=$(ls turns/demo | sort -n | tail -1)
echo
echo "== The final public report (turns/demo/$last/reports/public.txt):"
cat "turns/demo/$last/reports/public.txt"
echo
echo "Every turn's reports are in turns/demo/TURN/reports/ (public.txt and one per player)."
