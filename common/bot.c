/* common/bot.c: being written. */
