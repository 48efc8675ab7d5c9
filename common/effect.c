/* common/effect.c: being written. */
