# common/: logging, the config parser, lists, pools, timers, and the job
# secret (libsodium, its one dependency, hidden behind common/secret.h).
# Built once as a convenience library shared by librtmsg and the launcher.
noinst_LTLIBRARIES += common/libcommon.la
common_libcommon_la_SOURCES = \
	common/config_parse.c \
	common/error.c \
	common/error.h \
	common/list.h \
	common/log.c \
	common/log.h \
	common/mpool.c \
	common/mpool.h \
	common/rtconfig.h \
	common/secret.c \
	common/secret.h \
	common/shmname.c \
	common/shmname.h \
	common/timer.h
common_libcommon_la_CPPFLAGS = $(AM_CPPFLAGS) $(SODIUM_CFLAGS)
common_libcommon_la_LIBADD = $(SODIUM_LIBS)
