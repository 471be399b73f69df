# libvtrace: the in-process collector, vtrace-export, and their tests.
# Included by the top-level Makefile, which defines BUILD, WARN, CFLAGS,
# SAN_FLAGS, ALL_CFLAGS, ALL_LDFLAGS, LIBS, LIB_A, ALL_TARGETS, UNIT_BIN and
# the install directories (PREFIX, LIBDIR, INCLUDEDIR), and installs what
# is built here.
#
# The library lives inside someone else's process, so it has its own flags:
# no OpenMP, position-independent, only vt_* visible, and it does not link
# libvt.a.  Programs and tests around it use the usual flags.

COL_LIB_SRC := collector/vtrace.c collector/sampler.c
COL_LIB_OBJ := $(COL_LIB_SRC:collector/%.c=$(BUILD)/collector/lib/%.o)
COL_CFLAGS = $(WARN) -D_GNU_SOURCE $(CFLAGS) $(SAN_FLAGS) -fPIC -fvisibility=hidden -pthread \
	-Ilib/util -Ilib/read -MMD -MP
COL_LDLIBS = -pthread -ldl
# TLS descriptors: a dlopen()ed library (Python) reaches its thread-local
# buffer pointer without a __tls_get_addr() call on every record.  Where
# the compiler takes the option (gcc on x86_64; clang 14 does not).
ifeq ($(shell $(CC) -mtls-dialect=gnu2 -Werror -E -x c /dev/null >/dev/null 2>&1 && echo 1),1)
COL_CFLAGS += -mtls-dialect=gnu2
endif
COL_TEST_SRC := $(sort $(wildcard tests/collector/test_collector_*.c))
COL_TEST_BIN := $(COL_TEST_SRC:tests/collector/%.c=$(BUILD)/tests/%)
COL_HELPERS := $(BUILD)/tests/collector_bench $(BUILD)/tests/collector_demo
COL_FAKE_NVML := $(BUILD)/tests/fake-nvml/libnvidia-ml.so.1

COL_TARGETS := $(BUILD)/libvtrace.so $(BUILD)/libvtrace.a $(BUILD)/vtrace.pc \
	$(BUILD)/vtrace-export $(COL_HELPERS) $(COL_FAKE_NVML)
ALL_TARGETS += $(COL_TARGETS)
UNIT_BIN += $(COL_TEST_BIN)

$(BUILD)/collector/lib/%.o: collector/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(COL_CFLAGS) -c -o $@ $<

# nodelete: a thread-exit destructor and an atexit handler point into the
# library, so it must stay mapped even if someone dlclose()s it.
$(BUILD)/libvtrace.so: $(COL_LIB_OBJ)
	$(call quiet,LINK,$@)$(CC) -shared $(SAN_FLAGS) $(LDFLAGS) -Wl,-soname,libvtrace.so -Wl,-z,nodelete \
		-o $@ $^ $(COL_LDLIBS)

$(BUILD)/libvtrace.a: $(COL_LIB_OBJ)
	@rm -f $@
	$(call quiet,AR,$@)ar rcs $@ $^

# vtrace.pc names where 'make install' puts the header and the library, so
# it is made again when PREFIX, LIBDIR or INCLUDEDIR change.
PC_PATHS := $(PREFIX) $(LIBDIR) $(INCLUDEDIR)
PC_STAMP := $(BUILD)/pc-paths.stamp
$(shell mkdir -p $(BUILD) && echo '$(PC_PATHS)' | cmp -s - $(PC_STAMP) || \
	echo '$(PC_PATHS)' >$(PC_STAMP))
under_prefix = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

$(BUILD)/vtrace.pc: collector/collector.mk $(PC_STAMP)
	@mkdir -p $(dir $@)
	$(call quiet,GEN,$@)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(call under_prefix,$(LIBDIR))' \
		'includedir=$(call under_prefix,$(INCLUDEDIR))' '' \
		'Name: vtrace' 'Description: lean in-process collector for video-generation pipelines' \
		'Version: 0.1.0' 'Libs: -L$${libdir} -lvtrace' 'Libs.private: -pthread -ldl' \
		'Cflags: -I$${includedir}' > $@

$(BUILD)/vtrace-export: $(BUILD)/collector/export.o $(LIB_A)
	$(call quiet,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# Tests and helpers link the static library plus libvt.a for the reader.
$(BUILD)/tests/collector/%.o: INC = $(LIB_INC) -Icollector

$(BUILD)/tests/test_collector_%: $(BUILD)/tests/collector/test_collector_%.o \
		$(BUILD)/libvtrace.a $(LIB_A)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(COL_LDLIBS)

$(BUILD)/tests/test_collector_nvml: | $(COL_FAKE_NVML)

$(BUILD)/tests/collector_%: $(BUILD)/tests/collector/collector_%.o $(BUILD)/libvtrace.a $(LIB_A)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(COL_LDLIBS)

# The fake NVML is loaded into tests with dlopen: no sanitizer runtime in it.
$(COL_FAKE_NVML): tests/collector/fake_nvml.c
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(WARN) $(CFLAGS) -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o $@ $<
