/* common/spell.c: being written. */
