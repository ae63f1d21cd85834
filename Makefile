# Build, install and package Breeze.
#
#   make                              build breezed and breezectl (as yourself: no need for root)
#   sudo make install                 install what `make` built; PREFIX (default /usr/local) and DESTDIR honoured
#   sudo make uninstall               remove it again (a configuration you changed is kept)
#   make deb                          .build/deb/breeze_<version>_<arch>.deb, for this machine's architecture
#   make test                         the test suite (scripts/test)
#
# The binaries link the Swift runtime statically (--static-swift-stdlib): they need only Debian's libraries, not
# a Swift toolchain, and carry no RUNPATH (--disable-local-rpath). breezectl is a static executable altogether
# (Package.swift): it loads libmosquitto with dlopen for `fleet` alone. They are built in a scratch path of their
# own, .build/static, beside the test build. Where the toolchain cannot link those ways, the build says so and links
# the ordinary way (below).
#
# libstdc++, which the Swift runtime needs, is linked in statically too: the linker takes the part the runtime
# uses (a few hundred KiB) instead of mapping and relocating the whole shared library at each start (about 1 MiB
# resident). The runtime's link line asks for -lstdc++; a folder holding only libstdc++.a, searched before the
# compiler's own (which holds libstdc++.so), makes that the static archive.

PREFIX ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= /etc

bindir ?= $(PREFIX)/bin
unitdir ?= $(PREFIX)/lib/systemd/system
sysusersdir ?= $(PREFIX)/lib/sysusers.d
tmpfilesdir ?= $(PREFIX)/lib/tmpfiles.d
datadir ?= $(PREFIX)/share/breeze
docdir ?= $(PREFIX)/share/doc/breeze
mandir ?= $(PREFIX)/share/man
bashcompletiondir ?= $(PREFIX)/share/bash-completion/completions
zshcompletiondir ?= $(PREFIX)/share/zsh/vendor-completions
fishcompletiondir ?= $(PREFIX)/share/fish/vendor_completions.d
confdir ?= $(SYSCONFDIR)/breezed

SWIFT ?= swift
SWIFTC ?= swiftc
# The toolchain's clang, beside swiftc's real path: Debian's swiftlang puts only swift and swiftc on the PATH and keeps
# its clang in /usr/libexec/swift/bin. A clang on the PATH where none is there.
CLANG ?= $(shell c="$$(dirname "$$(readlink -f "$$(command -v $(SWIFTC))")")/clang"; [ -x "$$c" ] && echo "$$c" || echo clang)
JOBS ?= 2
SCRATCH ?= .build/static
BUILT = $(SCRATCH)/release
STATIC_CXX = $(SCRATCH)/static-libstdc++
SWIFTFLAGS = -c release --static-swift-stdlib --disable-local-rpath --scratch-path $(SCRATCH) -j $(JOBS) \
	-Xswiftc -warnings-as-errors -Xswiftc -L$(abspath $(STATIC_CXX))
COMPLETIONS = $(SCRATCH)/completions

# The files that name installed paths, with /usr/local/ replaced by the prefix's.
# The man pages' headers carry the version, read from the one place it is written.
VERSION := $(shell scripts/version)
SUBSTITUTE = sed -e 's|/usr/local/|$(PREFIX)/|g' -e 's|@VERSION@|$(VERSION)|g'

DOCS = README.md docs/PROTOCOL.md docs/DATA-LICENCES.md docs/subscribe.py

.PHONY: all build install uninstall deb test check-built clean

all: build

# What the toolchain can link is tried on a one-line program first: lld (breezed, with packed relocations) and a
# static executable (breezectl) where it can, the ordinary link where it cannot (Debian's own swiftlang has no
# static archives for a static executable); Package.swift reads the answer from BREEZE_LINK, and the build says
# what it left out.
PROBE = $(SCRATCH)/probe

build:
	@archive=$$($(CLANG) -print-file-name=libstdc++.a); \
	if [ ! -f "$$archive" ]; then \
		echo "make: clang (the Swift toolchain's) found no libstdc++.a: install Debian's g++ (it brings libstdc++-N-dev)" >&2; exit 1; \
	fi; \
	mkdir -p $(STATIC_CXX) && ln -sfn "$$archive" $(STATIC_CXX)/libstdc++.a
	@mkdir -p $(PROBE) && echo 'print(1)' > $(PROBE)/main.swift; link=; \
	if $(SWIFTC) -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs $(PROBE)/main.swift -o $(PROBE)/lld \
		>/dev/null 2>&1; then link=lld; else echo "make: this toolchain cannot link with lld: breezed is linked the ordinary way"; fi; \
	if $(SWIFTC) -static-executable $(PROBE)/main.swift -o $(PROBE)/static >/dev/null 2>&1; then link=$$link,static; \
	else echo "make: this toolchain cannot link a static executable: breezectl is linked dynamically"; fi; \
	echo "$$link" > $(SCRATCH)/link
	BREEZE_LINK=$$(cat $(SCRATCH)/link) $(SWIFT) build $(SWIFTFLAGS) --product breezed
	BREEZE_LINK=$$(cat $(SCRATCH)/link) $(SWIFT) build $(SWIFTFLAGS) --product breezectl
	mkdir -p $(COMPLETIONS)
	$(BUILT)/breezectl completion bash > $(COMPLETIONS)/breezectl.bash
	$(BUILT)/breezectl completion zsh > $(COMPLETIONS)/_breezectl
	$(BUILT)/breezectl completion fish > $(COMPLETIONS)/breezectl.fish

test:
	scripts/test

# `make install` installs; it never builds (a build as root would leave root's files in .build).
check-built:
	@for file in $(BUILT)/breezed $(BUILT)/breezectl $(COMPLETIONS)/breezectl.bash $(COMPLETIONS)/_breezectl \
		$(COMPLETIONS)/breezectl.fish; do \
		if [ ! -f "$$file" ]; then echo "make install: $$file is missing: run 'make' first (as yourself)" >&2; exit 1; fi; \
	done

install: check-built
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(unitdir) $(DESTDIR)$(sysusersdir) $(DESTDIR)$(tmpfilesdir) \
		$(DESTDIR)$(datadir) $(DESTDIR)$(docdir) $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(mandir)/man5 \
		$(DESTDIR)$(mandir)/man8 $(DESTDIR)$(bashcompletiondir) $(DESTDIR)$(zshcompletiondir) \
		$(DESTDIR)$(fishcompletiondir) $(DESTDIR)$(confdir)
	install -m 0755 $(BUILT)/breezed $(BUILT)/breezectl $(DESTDIR)$(bindir)/
	install -m 0644 data/places.bin $(DESTDIR)$(datadir)/places.bin
	install -m 0644 $(DOCS) $(DESTDIR)$(docdir)/
	$(SUBSTITUTE) etc/breezed.conf > $(DESTDIR)$(docdir)/breezed.conf
	$(SUBSTITUTE) docs/man/breezectl.1 > $(DESTDIR)$(mandir)/man1/breezectl.1
	$(SUBSTITUTE) docs/man/breezed.conf.5 > $(DESTDIR)$(mandir)/man5/breezed.conf.5
	$(SUBSTITUTE) docs/man/breezed.8 > $(DESTDIR)$(mandir)/man8/breezed.8
	$(SUBSTITUTE) systemd/breezed.service > $(DESTDIR)$(unitdir)/breezed.service
	install -m 0644 systemd/breezed.socket $(DESTDIR)$(unitdir)/breezed.socket
	install -m 0644 systemd/breezed.sysusers $(DESTDIR)$(sysusersdir)/breezed.conf
	install -m 0644 systemd/breezed.tmpfiles $(DESTDIR)$(tmpfilesdir)/breezed.conf
	install -m 0644 $(COMPLETIONS)/breezectl.bash $(DESTDIR)$(bashcompletiondir)/breezectl
	install -m 0644 $(COMPLETIONS)/_breezectl $(DESTDIR)$(zshcompletiondir)/_breezectl
	install -m 0644 $(COMPLETIONS)/breezectl.fish $(DESTDIR)$(fishcompletiondir)/breezectl.fish
	chmod 0644 $(DESTDIR)$(docdir)/breezed.conf $(DESTDIR)$(mandir)/man1/breezectl.1 $(DESTDIR)$(mandir)/man5/breezed.conf.5 \
		$(DESTDIR)$(mandir)/man8/breezed.8 $(DESTDIR)$(unitdir)/breezed.service
	@if [ -e $(DESTDIR)$(confdir)/breezed.conf ]; then \
		echo "make install: keeping $(DESTDIR)$(confdir)/breezed.conf"; \
	else \
		$(SUBSTITUTE) etc/breezed.conf > $(DESTDIR)$(confdir)/breezed.conf && chmod 0644 $(DESTDIR)$(confdir)/breezed.conf; \
	fi
	@if [ -z "$(DESTDIR)" ]; then \
		echo "make install: done. Next: systemd-sysusers, systemd-tmpfiles --create, systemctl daemon-reload, systemctl enable --now breezed.socket"; \
	fi

uninstall:
	rm -f $(DESTDIR)$(bindir)/breezed $(DESTDIR)$(bindir)/breezectl
	rm -f $(DESTDIR)$(unitdir)/breezed.service $(DESTDIR)$(unitdir)/breezed.socket
	rm -f $(DESTDIR)$(sysusersdir)/breezed.conf $(DESTDIR)$(tmpfilesdir)/breezed.conf
	rm -f $(DESTDIR)$(mandir)/man1/breezectl.1 $(DESTDIR)$(mandir)/man5/breezed.conf.5 $(DESTDIR)$(mandir)/man8/breezed.8
	rm -f $(DESTDIR)$(bashcompletiondir)/breezectl $(DESTDIR)$(zshcompletiondir)/_breezectl \
		$(DESTDIR)$(fishcompletiondir)/breezectl.fish
	rm -f $(DESTDIR)$(datadir)/places.bin
	for file in $(DOCS) etc/breezed.conf; do rm -f $(DESTDIR)$(docdir)/$${file##*/}; done
	-rmdir $(DESTDIR)$(datadir) $(DESTDIR)$(docdir) 2>/dev/null
	@# The configuration goes only while it is the one install put there.
	@if [ -e $(DESTDIR)$(confdir)/breezed.conf ]; then \
		if $(SUBSTITUTE) etc/breezed.conf | cmp -s - $(DESTDIR)$(confdir)/breezed.conf; then \
			rm -f $(DESTDIR)$(confdir)/breezed.conf; rmdir $(DESTDIR)$(confdir) 2>/dev/null || true; \
		else \
			echo "make uninstall: keeping $(DESTDIR)$(confdir)/breezed.conf: it was changed"; \
		fi; \
	fi

# The Debian package, built from `make install` into a staging folder with Debian's tools (dpkg-shlibdeps,
# dpkg-gencontrol, dpkg-deb); see scripts/make-deb.
deb: build
	scripts/make-deb

clean:
	rm -rf $(SCRATCH) .build/deb
