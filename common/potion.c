/* common/potion.c: being written. */
