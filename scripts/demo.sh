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

# play TITLE GAME_ID -- ARGS OF `pbem new` (type, id, players, seed, options)
play() {
  local title=$1 game=$2
  shift 3
  echo
  echo "== $title (orders in turns/$game/TURN/PLAYER.txt)"
  "$PBEM" new "$@"
  "$PBEM" status "$game"
  "$PBEM" resolve "$game"
  "$PBEM" status "$game"
  "$PBEM" replay "$game" --verify
  local last
  last=$(ls "turns/$game" | sort -n | tail -1)
  echo
  echo "== The final public report (turns/$game/$last/reports/public.txt):"
  cat "turns/$game/$last/reports/public.txt"
}

play "GODS: game 'demo' for athena, odin and ra" demo -- \
  gods demo --player athena --player odin --player ra --seed 2026
play "Oh Gods!: game 'demo-ohgods' for delphi, karnak and uppsala" demo-ohgods -- \
  ohgods demo-ohgods --player delphi --player karnak --player uppsala --seed 2026
play "Deity: game 'demo-deity' for zeus, isis and thor, 12 rounds" demo-deity -- \
  deity demo-deity --player zeus --player isis --player thor --seed 2026 --option rounds=12
play "Ye Gods!: game 'demo-yegods' for jupiter, odin and lugus, Jehovah the Unknown God" demo-yegods -- \
  yegods demo-yegods --player jupiter --player odin --player lugus --seed 2031
play "Faith - Wild Gods: game 'demo-faith' for moses, zarathustra and hammurabi, 30 eras" demo-faith -- \
  faith demo-faith --player moses --player zarathustra --player hammurabi --seed 2026

echo
echo "Every turn's reports are in turns/GAME/TURN/reports/ (public.txt and one per player)."
