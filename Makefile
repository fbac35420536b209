# tcsim - a discrete-event simulator of Linux traffic control.
#   make            build ./tcsim
#   make demo       the main job: ./tcsim scenarios/ssh_http.lua (installs missing Debian packages first)
#   make check      every test: CUnit suites, command-level, kernel differential
#   make check-qemu prio/sfq against a real kernel in qemu (slow; root)
#   make check-shaping tbf and htb against this kernel, departure by departure (root)
#   make asan       the same tests under AddressSanitizer + UBSan
#   make valgrind   tcsim under valgrind memcheck: scenarios, check, run with every output, error paths
#   make fuzz       every fuzz target under libFuzzer for FUZZ_SECONDS [60] each (clang)
#   make bench      interpreter and whole-simulation speed against libpcap, peak RSS
#   make bench-peers the same 2-class capture through tcsim and ns-3's PrioQueueDisc: speed ratio, delays
#                   (optional; installs libns3-dev when root and missing)
#   make bench-scale peak RSS and ns/packet as runs, backlogs and sfq flows grow (minutes)
#   make install    PREFIX=/usr/local, DESTDIR=: the binary, docs and scenarios (make uninstall)
#   make deps       install missing Debian packages (needs root)

# Building needs only the libraries; the tests need CUnit and the reference
# tools too (command:package).
PKGS       := libpcap libnl-3.0 libnl-route-3.0 lua5.4
BUILD_DEBS := libpcap-dev libnl-3-dev libnl-route-3-dev liblua5.4-dev pkg-config
TEST_DEBS  := libcunit1-dev netsniff-ng tcpdump tcpreplay iproute2 gnuplot-nox libxml2-utils perl tshark jq
TEST_BINS  := bpfc:netsniff-ng tcpdump:tcpdump tcpreplay:tcpreplay tc:iproute2 xmllint:libxml2-utils prove:perl tshark:tshark jq:jq

# tcsim --version: VERSION, and the commit when built from a git checkout
VERSION := 0.9.0
GIT_REV := $(shell git describe --always --dirty 2>/dev/null)
TCSIM_VERSION := $(VERSION)$(if $(GIT_REV), (git $(GIT_REV)))
BUILD   ?= build
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share/tcsim
DOCDIR  ?= $(PREFIX)/share/doc/tcsim
MANDIR  ?= $(PREFIX)/share/man
COMPLETIONSDIR ?= $(PREFIX)/share/bash-completion/completions
# The layers, lowest first: a file includes headers of its own layer and
# the layers before it only (tests/cli/layers.sh; docs/HACKING.md).
LAYERS  := base classifier qdisc sim tc report kernel lua cmd
CC      ?= cc
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
override CFLAGS += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter -MMD -MP \
           $(LAYERS:%=-I%) -Itests/support
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CUNIT_LIBS = $(shell pkg-config --libs cunit 2>/dev/null || echo -lcunit)

LIB_SRC  := $(filter-out cmd/main.c,$(foreach d,$(LAYERS),$(wildcard $(d)/*.c)))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
SUP_SRC  := $(wildcard tests/support/*.c)
SUP_OBJ  := $(SUP_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# What the CUnit suites share (CUnit asserts: linked into them only)
UNIT_SUP := $(BUILD)/tests/unit/tc_unit.o
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BIN := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)
BENCH_BIN := $(BUILD)/bench/bpf_bench
SIM_BENCH := $(BUILD)/bench/sim_bench
SCALE_BENCH := $(BUILD)/bench/scale_bench
# Fuzz targets: tests/fuzz/fuzz_NAME.c. make check links each with
# replay.c (the committed regression inputs); make fuzz with libFuzzer.
FUZZ_SRC   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
REPLAY_BIN := $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay_%)
FUZZ_BIN   := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

.PHONY: all demo check check-qemu check-shaping asan bench bench-peers bench-scale deps deps-check deps-check-test install uninstall format clean fuzz fuzz-bins fuzz-deps-check valgrind
all: tcsim

tcsim: $(BUILD)/tcsim
	@cp $< $@

$(BUILD)/tcsim: $(BUILD)/cmd/main.o $(BUILD)/libtcsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/base/version.o: override CFLAGS += -DTCSIM_VERSION='"$(TCSIM_VERSION)"'
# version.o (base/version.c: tcsim_version, for --version and goldens) is
# rebuilt when the version string changes (a new commit), not only when
# version.c does: the stamp is rewritten only when its text differs.
$(BUILD)/base/version.o: $(BUILD)/version.stamp
$(BUILD)/version.stamp: FORCE | $(BUILD)/.deps-build
	@echo '$(TCSIM_VERSION)' | cmp -s - $@ 2>/dev/null || echo '$(TCSIM_VERSION)' > $@
FORCE:

$(BUILD)/libtcsim.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Every object waits for the dependency check (order-only), so make -j on a
# fresh machine installs the headers before it compiles anything.
$(BUILD)/%.o: %.c | $(BUILD)/.deps-build
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

# The unit tests include CUnit's headers.
$(BUILD)/tests/unit/%.o: tests/unit/%.c | $(BUILD)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(PKG_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(UNIT_SUP) $(SUP_OBJ) $(BUILD)/libtcsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) $(CUNIT_LIBS) -lm

$(BUILD)/tools/%: $(BUILD)/tests/tools/%.o $(SUP_OBJ) $(BUILD)/libtcsim.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(BENCH_BIN): $(BUILD)/bench/bpf_bench.o $(SUP_OBJ) $(BUILD)/libtcsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(SIM_BENCH): $(BUILD)/bench/sim_bench.o $(SUP_OBJ) $(BUILD)/libtcsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(SCALE_BENCH): $(BUILD)/bench/scale_bench.o $(SUP_OBJ) $(BUILD)/libtcsim.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/fuzz/replay_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/replay.o $(BUILD)/tests/fuzz/noresolve.o $(SUP_OBJ) $(BUILD)/libtcsim.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(BUILD)/fuzz/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(BUILD)/tests/fuzz/noresolve.o $(SUP_OBJ) $(BUILD)/libtcsim.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

# The main job (until the Lua scenario lands): the seed commit's ssh.ops
# assembled and run over a real SSH capture, then its whole policy (prio,
# sfq, four bpf filters) on a 256 kbit/s link.
demo: tcsim
	./tcsim bpf asm scenarios/filters/ssh.ops
	./tcsim scenarios/ssh_http.lua

check: $(BUILD)/.deps-test $(BUILD)/tcsim $(UNIT_BIN) $(TOOL_BIN) $(REPLAY_BIN)
	@TCSIM=$(abspath $(BUILD))/tcsim BUILD=$(abspath $(BUILD)) sh tests/run_all.sh

# prio, sfq and shaping trees with them against Debian's kernel booted in
# qemu (root; ~5 minutes):
# tests/qemu/prio_oracle.sh replays each recorded case live. make check
# compares with the recorded kernel output instead (tests/cli/prio_recorded.sh).
# tests/qemu/import_oracle.sh then checks that the kernel still dumps what
# tests/data/qemu/import.rec holds (flower, basic, matchall, fw; and the
# filters kernel-check's messages install), which tests/cli/import_recorded.sh
# replays in make check.
check-qemu: $(BUILD)/.deps-test $(BUILD)/tcsim $(TOOL_BIN)
	@TCSIM=$(abspath $(BUILD))/tcsim sh tests/qemu/prio_oracle.sh
	@KCMSG=$(abspath $(BUILD))/tools/kcmsg sh tests/qemu/import_oracle.sh

# tbf and htb against this machine's kernel, departure by departure, in
# private namespaces (root; about a minute): timings compared within the
# timer slack it measures, so it stays out of make check, whose kernel
# tests compare counts only (tests/timing/shaping_diff.sh).
check-shaping: $(BUILD)/.deps-test $(BUILD)/tcsim
	@TCSIM=$(abspath $(BUILD))/tcsim sh tests/timing/shaping_diff.sh

# tcsim under valgrind memcheck, leaks included: a scenario, tcsim check, tcsim
# run with every output, an error path of each command (tests/valgrind.sh;
# .ci/run runs its ci rows).
valgrind: $(BUILD)/tcsim
	@command -v valgrind >/dev/null 2>&1 || [ "$$(id -u)" != 0 ] || \
	  { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends valgrind; }
	@TCSIM=$(abspath $(BUILD))/tcsim sh tests/valgrind.sh $(if $(VALGRIND_SET),$(VALGRIND_SET),all)

# Same tests, separate build tree, sanitizers on, any report fatal.
asan:
	$(MAKE) BUILD=build-asan OPT=-O1 \
	  CFLAGS='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all' \
	  LDFLAGS='-fsanitize=address,undefined' check

# Every fuzz target under libFuzzer + ASan + UBSan for FUZZ_SECONDS each
# (clang; make deps installs it only for this target). Findings land in
# build-fuzz/findings/NAME/; keep a minimized one in tests/fuzz/regress/NAME/.
fuzz: $(BUILD)/.deps-build fuzz-deps-check
	$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang OPT=-O1 CFLAGS="$(FUZZ_FLAGS)" \
	  LDFLAGS="-fsanitize=address,undefined" fuzz-bins
	@FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_TARGETS="$(FUZZ_TARGETS)" sh tests/fuzz/run.sh build-fuzz

fuzz-bins: $(FUZZ_BIN)

fuzz-deps-check:
	@if ! command -v clang >/dev/null 2>&1 || \
	   ! clang -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null | grep -q /; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends clang libclang-rt-14-dev; \
	  else echo "tcsim: make fuzz needs clang and libFuzzer; run 'sudo make fuzz-deps-check' (Debian: clang libclang-rt-14-dev)" >&2; exit 1; fi; \
	fi

bench: $(BENCH_BIN) $(SIM_BENCH)
	$(BENCH_BIN)
	$(SIM_BENCH)

# A peer in the bench (optional, never part of make or make check): ns-3's
# PrioQueueDisc (Debian's libns3-dev, installed here when root and missing) and
# tcsim over the same 2-class Poisson capture at 10 Mbit/s, made by tcsim from
# bench/peers/capture.lua (PEERS_SECONDS of traffic); bench/peers/run.sh times both
# PEERS_REPS times, interleaved, and prints the speed ratio and the per-band mean
# delays side by side. Debian's ns3 .pc files name libgsl.so and libsqlite3.so by
# path, which only their -dev packages provide; ns-3's own libraries already
# link them, so a path that does not exist is left out.
NS3_PKGS      := ns3-point-to-point ns3-traffic-control ns3-network ns3-core
NS3_DEB       := libns3-dev
PEERS_SECONDS ?= 100
PEERS_REPS    ?= 5
PEERS_DIR     := $(BUILD)/bench/peers
PEERS_BIN     := $(PEERS_DIR)/ns3_prio
PEERS_CAP     := $(PEERS_DIR)/two_class_$(PEERS_SECONDS)s.pcap
NS3_CFLAGS     = $(foreach f,$(shell pkg-config --cflags $(NS3_PKGS) libpcap 2>/dev/null),$(if $(findstring ;,$(f)),,$(f)))
NS3_LIBS       = $(foreach f,$(shell pkg-config --libs $(NS3_PKGS) libpcap 2>/dev/null),$(if $(filter /%,$(f)),$(wildcard $(f)),$(f)))

bench-peers: $(BUILD)/tcsim $(PEERS_BIN) $(PEERS_CAP)
	@sh bench/peers/run.sh $(BUILD)/tcsim $(PEERS_BIN) $(PEERS_CAP) $(PEERS_REPS)

$(PEERS_BIN): bench/peers/ns3_prio.cc | $(PEERS_DIR)/.deps-ns3
	$(CXX) -std=c++17 $(OPT) -g -Wall -Wextra -Wno-unused-parameter $(NS3_CFLAGS) -o $@ $< $(NS3_LIBS)

$(PEERS_CAP): bench/peers/capture.lua $(BUILD)/tcsim
	@rm -rf $@.d && mkdir -p $@.d
	$(BUILD)/tcsim bench/peers/capture.lua -- $@.d $(PEERS_SECONDS)
	@mv $@.d/eth0-root-sent.pcap $@ && rm -rf $@.d

$(PEERS_DIR)/.deps-ns3: | $(BUILD)/.deps-build
	@if ! pkg-config --exists $(NS3_PKGS) 2>/dev/null || ! command -v $(CXX) >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(NS3_DEB) || exit 1; \
	    pkg-config --exists $(NS3_PKGS) || { echo "tcsim: $(NS3_DEB) is installed but pkg-config finds no $(NS3_PKGS)" >&2; exit 1; }; \
	  else echo "tcsim: make bench-peers needs ns-3 and a C++ compiler: the Debian package $(NS3_DEB); run 'sudo make bench-peers' or apt-get install $(NS3_DEB)" >&2; exit 1; fi; \
	fi
	@mkdir -p $(dir $@) && touch $@
# Issue 17 item 4, a few minutes: peak RSS from 10k to 10M packets and with
# a 1M-packet backlog, ns/packet from 100 to 100k concurrent sfq flows.
bench-scale: $(SCALE_BENCH)
	$(SCALE_BENCH)

# Missing packages are installed when we are root; otherwise we say which.
# The stamps record a check that passed, once per build tree.
$(BUILD)/.deps-build:
	@missing=""; \
	command -v pkg-config >/dev/null 2>&1 || missing=1; \
	for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing=1; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(BUILD_DEBS) || exit 1; \
	  else echo "tcsim: building needs $(BUILD_DEBS); run 'sudo make deps' or apt-get install them" >&2; exit 1; fi; \
	fi
	@mkdir -p $(dir $@) && touch $@

$(BUILD)/.deps-test: | $(BUILD)/.deps-build
	@need=""; \
	pkg-config --exists cunit 2>/dev/null || need="libcunit1-dev"; \
	for bp in $(TEST_BINS); do b=$${bp%%:*}; \
	  command -v $$b >/dev/null 2>&1 || [ -x /usr/sbin/$$b ] || [ -x /sbin/$$b ] || need="$$need $${bp#*:}"; done; \
	if [ -n "$$need" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(TEST_DEBS) || exit 1; \
	  else echo "tcsim: the tests need the Debian packages$$need; run 'sudo make deps'" >&2; exit 1; fi; \
	fi
	@touch $@

deps-check: $(BUILD)/.deps-build
deps-check-test: $(BUILD)/.deps-test

deps:
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $(BUILD_DEBS) $(TEST_DEBS)

# make install [DESTDIR=D] [PREFIX=/usr/local]: the binary, its man page, the
# Lua API and trace docs, and the shipped scenarios (with their filters and captures)
# under share/tcsim, runnable from anywhere.
install: $(BUILD)/tcsim
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR)/man1 \
	  $(DESTDIR)$(COMPLETIONSDIR)
	install -m 644 docs/tcsim.1 $(DESTDIR)$(MANDIR)/man1/tcsim.1
	install -m 644 contrib/bash-completion/tcsim $(DESTDIR)$(COMPLETIONSDIR)/tcsim
	install -m 644 LICENSE $(DESTDIR)$(DOCDIR)/
	install -m 755 $(BUILD)/tcsim $(DESTDIR)$(BINDIR)/tcsim
	install -m 644 README.md docs/lua-api.md docs/trace.md $(DESTDIR)$(DOCDIR)/
	cd scenarios && find . -type d -exec install -d $(DESTDIR)$(DATADIR)/scenarios/{} \; && \
	  find . -type f -exec install -m 644 {} $(DESTDIR)$(DATADIR)/scenarios/{} \;

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/tcsim $(DESTDIR)$(MANDIR)/man1/tcsim.1 $(DESTDIR)$(COMPLETIONSDIR)/tcsim
	rm -rf $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR)

# The files this change touches (modified, added, untracked), not the whole
# tree: reformatting untouched files only makes merges conflict.
format:
	@files=$$( { git diff --name-only --diff-filter=AM HEAD; git ls-files --others --exclude-standard; } | grep -E '\.[ch]$$' | sort -u); \
	if [ -n "$$files" ]; then clang-format -i $$files; echo "formatted: "$$files; fi

clean:
	rm -rf build build-asan tcsim

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
