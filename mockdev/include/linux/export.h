/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_EXPORT_H
#define MOCK_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)		extern typeof(sym) sym
#define EXPORT_SYMBOL_GPL(sym)		extern typeof(sym) sym
#define EXPORT_SYMBOL_NS_GPL(sym, ns)	extern typeof(sym) sym

#endif /* MOCK_LINUX_EXPORT_H */
