/* common/game.c: being written. */
