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
# own, .build/static, beside the test build.
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
JOBS ?= 2
SCRATCH ?= .build/static
BUILT = $(SCRATCH)/release
STATIC_CXX = $(SCRATCH)/static-libstdc++
SWIFTFLAGS = -c release --static-swift-stdlib --disable-local-rpath --scratch-path $(SCRATCH) -j $(JOBS) \
	-Xswiftc -warnings-as-errors -Xswiftc -L$(abspath $(STATIC_CXX))
COMPLETIONS = $(SCRATCH)/completions

# The files that name installed paths, with /usr/local/ replaced by the prefix's.
SUBSTITUTE = sed -e 's|/usr/local/|$(PREFIX)/|g'

DOCS = README.md docs/PROTOCOL.md docs/DATA-LICENCES.md docs/subscribe.py

.PHONY: all build install uninstall deb test check-built clean

all: build

build:
	@archive=$$(clang -print-file-name=libstdc++.a); \
	if [ ! -f "$$archive" ]; then \
		echo "make: clang (the Swift toolchain's) found no libstdc++.a: install Debian's libstdc++-12-dev" >&2; exit 1; \
	fi; \
	mkdir -p $(STATIC_CXX) && ln -sfn "$$archive" $(STATIC_CXX)/libstdc++.a
	$(SWIFT) build $(SWIFTFLAGS) --product breezed
	$(SWIFT) build $(SWIFTFLAGS) --product breezectl
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
