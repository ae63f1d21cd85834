# Build and install Breeze. `make install PREFIX=/usr DESTDIR=pkg/` for packaging.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(DESTDIR)$(PREFIX)/bin
SHAREDIR = $(DESTDIR)$(PREFIX)/share
SYSTEMDDIR ?= $(DESTDIR)/etc/systemd/system

.PHONY: build test install uninstall

build:
	swift build -c release --product breezed
	swift build -c release --product breezectl

test:
	scripts/test

install: build
	install -d $(BINDIR) $(SHAREDIR)/breeze $(SHAREDIR)/doc/breeze $(SHAREDIR)/man/man1 $(SHAREDIR)/man/man5 \
		$(SHAREDIR)/man/man8 $(SYSTEMDDIR) $(DESTDIR)$(PREFIX)/lib/sysusers.d $(DESTDIR)$(PREFIX)/lib/tmpfiles.d \
		$(DESTDIR)/etc/breezed
	install -m 0755 .build/release/breezed .build/release/breezectl $(BINDIR)/
	install -m 0644 data/places.bin $(SHAREDIR)/breeze/places.bin
	install -m 0644 docs/PROTOCOL.md docs/subscribe.py etc/breezed.conf $(SHAREDIR)/doc/breeze/
	install -m 0644 docs/man/breezectl.1 $(SHAREDIR)/man/man1/
	install -m 0644 docs/man/breezed.conf.5 $(SHAREDIR)/man/man5/
	install -m 0644 docs/man/breezed.8 $(SHAREDIR)/man/man8/
	sed 's|/usr/local/bin/breezed|$(PREFIX)/bin/breezed|' systemd/breezed.service > $(SYSTEMDDIR)/breezed.service
	install -m 0644 systemd/breezed.socket $(SYSTEMDDIR)/
	install -m 0644 systemd/breezed.sysusers $(DESTDIR)$(PREFIX)/lib/sysusers.d/breezed.conf
	install -m 0644 systemd/breezed.tmpfiles $(DESTDIR)$(PREFIX)/lib/tmpfiles.d/breezed.conf
	test -e $(DESTDIR)/etc/breezed/breezed.conf || install -m 0644 etc/breezed.conf $(DESTDIR)/etc/breezed/

uninstall:
	rm -f $(BINDIR)/breezed $(BINDIR)/breezectl $(SYSTEMDDIR)/breezed.service $(SYSTEMDDIR)/breezed.socket
	rm -rf $(SHAREDIR)/breeze $(SHAREDIR)/doc/breeze
