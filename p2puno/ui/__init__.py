"""The full-screen terminal table (prompt-toolkit): view model, rendering, the app, the
person's player, and the launchers for host, join, demo, watch and replay (docs/ui.md)."""
