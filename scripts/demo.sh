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

echo
echo "== Oh Gods!: game 'demo-ohgods' for delphi, karnak and uppsala (orders in turns/demo-ohgods/TURN/PLAYER.txt)"
"$PBEM" new ohgods demo-ohgods --player delphi --player karnak --player uppsala --seed 2026
"$PBEM" status demo-ohgods
"$PBEM" resolve demo-ohgods
"$PBEM" status demo-ohgods
"$PBEM" replay demo-ohgods --verify
last=$(ls turns/demo-ohgods | sort -n | tail -1)
echo
echo "== The final public report (turns/demo-ohgods/$last/reports/public.txt):"
cat "turns/demo-ohgods/$last/reports/public.txt"

echo
echo "== Deity: game 'demo-deity' for zeus, isis and thor, 12 rounds (orders in turns/demo-deity/TURN/PLAYER.txt)"
"$PBEM" new deity demo-deity --player zeus --player isis --player thor --seed 2026 --option rounds=12
"$PBEM" status demo-deity
"$PBEM" resolve demo-deity
"$PBEM" status demo-deity
"$PBEM" replay demo-deity --verify
last=$(ls turns/demo-deity | sort -n | tail -1)
echo
echo "== The final public report (turns/demo-deity/$last/reports/public.txt):"
cat "turns/demo-deity/$last/reports/public.txt"

echo
echo "== Ye Gods!: game 'demo-yegods' for jupiter, odin and lugus, Jehovah the Unknown God (orders in turns/demo-yegods/TURN/PLAYER.txt)"
"$PBEM" new yegods demo-yegods --player jupiter --player odin --player lugus --seed 2031
"$PBEM" status demo-yegods
"$PBEM" resolve demo-yegods
"$PBEM" status demo-yegods
"$PBEM" replay demo-yegods --verify
last=$(ls turns/demo-yegods | sort -n | tail -1)
echo
echo "== The final public report (turns/demo-yegods/$last/reports/public.txt):"
cat "turns/demo-yegods/$last/reports/public.txt"
