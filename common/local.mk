# common/: logging, the config parser, lists, pools, timers. No dependencies.
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
	common/timer.h
