//! Helpers for the declarative `sim_rt::select!` (and `join!`) macros: the
//! things a `macro_rules!` macro cannot do by itself (make up identifiers,
//! count, nest without recursing once per branch).
//!
//! `select!` numbers its branches with a run of `_` tokens, one per earlier
//! branch (its "skip" list); these helpers turn such a run into an index, a
//! variant name, or a whole output enum. They follow the design of tokio's
//! `select_priv_*` macros, with the counting done here instead of in tables
//! of `macro_rules!` arms.

use proc_macro2::{Delimiter, Ident, Literal, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::parse::Parser;

/// The most branches a `select!` may have: one bit of a `u64` each.
const MAX_BRANCHES: usize = 64;

/// Counts the `_` tokens of a run, looking through invisible groups (a run
/// forwarded through a `macro_rules!` matcher may arrive wrapped in one).
fn count_underscores(input: TokenStream) -> Result<usize, syn::Error> {
    let mut n = 0;
    for token in input {
        match token {
            TokenTree::Ident(ref ident) if ident == "_" => n += 1,
            TokenTree::Group(group) if group.delimiter() == Delimiter::None => {
                n += count_underscores(group.stream())?;
            }
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "select! internal error: expected a run of `_`",
                ))
            }
        }
    }
    Ok(n)
}

/// Splits `Name (run) rest...` into its parts.
fn name_and_run(input: TokenStream) -> Result<(Ident, usize, TokenStream), syn::Error> {
    let mut tokens = input.into_iter();
    let name = match tokens.next() {
        Some(TokenTree::Ident(name)) => name,
        other => {
            let span = other.map_or_else(Span::call_site, |t| t.span());
            return Err(syn::Error::new(
                span,
                "select! internal error: expected the output enum's name",
            ));
        }
    };
    let run = match tokens.next() {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis => {
            count_underscores(group.stream())?
        }
        other => {
            let span = other.map_or_else(Span::call_site, |t| t.span());
            return Err(syn::Error::new(
                span,
                "select! internal error: expected `(_ _ ...)`",
            ));
        }
    };
    Ok((name, run, tokens.collect()))
}

fn variant_ident(index: usize) -> Ident {
    Ident::new(&format!("_{index}"), Span::call_site())
}

/// `Name (_ _ _)` becomes
/// `enum Name<_0, _1, _2> { _0(_0), _1(_1), _2(_2), Disabled }`: the value
/// of whichever branch completed, or `Disabled` when none could.
pub(crate) fn declare_output_enum(input: TokenStream) -> TokenStream {
    let (name, branches, _) = match name_and_run(input) {
        Ok(parts) => parts,
        Err(e) => return e.into_compile_error(),
    };
    if branches > MAX_BRANCHES {
        let msg = format!(
            "select! supports at most {MAX_BRANCHES} branches, this one has {branches}; \
             nest two select!s or collect the futures into a `FuturesUnordered`"
        );
        return syn::Error::new(Span::call_site(), msg).into_compile_error();
    }
    let variants: Vec<Ident> = (0..branches).map(variant_ident).collect();
    quote! {
        enum #name<#(#variants),*> {
            #(#variants(#variants),)*
            Disabled,
        }
    }
}

/// `_ _ _` becomes the integer literal `3`.
pub(crate) fn count(input: TokenStream) -> TokenStream {
    match count_underscores(input) {
        Ok(n) => Literal::usize_unsuffixed(n).into_token_stream(),
        Err(e) => e.into_compile_error(),
    }
}

/// `Name (_ _) (payload)` becomes `Name::_2(payload)`.
pub(crate) fn variant(input: TokenStream) -> TokenStream {
    match name_and_run(input) {
        Ok((name, index, payload)) => {
            let variant = variant_ident(index);
            quote!(#name::#variant #payload)
        }
        Err(e) => e.into_compile_error(),
    }
}

/// Removes `ref` and `mut` from a pattern. Input that is not a pattern is
/// returned unchanged: `select!` puts it where a pattern is required, so
/// rustc reports the error there.
pub(crate) fn clean_pattern_macro(input: TokenStream) -> TokenStream {
    match syn::Pat::parse_multi_with_leading_vert.parse2(input.clone()) {
        Ok(mut pat) => {
            clean_pattern(&mut pat);
            pat.into_token_stream()
        }
        Err(_) => input,
    }
}

/// After this, matching the pattern against `&value` (default binding modes)
/// tests whether it matches `value` without moving out of it.
fn clean_pattern(pat: &mut syn::Pat) {
    use syn::Pat;
    match pat {
        Pat::Ident(ident) => {
            ident.by_ref = None;
            ident.mutability = None;
            if let Some((_, sub)) = &mut ident.subpat {
                clean_pattern(sub);
            }
        }
        Pat::Reference(reference) => {
            reference.mutability = None;
            clean_pattern(&mut reference.pat);
        }
        Pat::Or(or) => or.cases.iter_mut().for_each(clean_pattern),
        Pat::Slice(slice) => slice.elems.iter_mut().for_each(clean_pattern),
        Pat::Tuple(tuple) => tuple.elems.iter_mut().for_each(clean_pattern),
        Pat::TupleStruct(tuple) => tuple.elems.iter_mut().for_each(clean_pattern),
        Pat::Struct(s) => s.fields.iter_mut().for_each(|f| clean_pattern(&mut f.pat)),
        Pat::Paren(paren) => clean_pattern(&mut paren.pat),
        Pat::Type(typed) => clean_pattern(&mut typed.pat),
        // Literals, paths, ranges, `..`, `_`, macros: nothing to remove.
        _ => {}
    }
}

/// The next parenthesised group of `tokens`, as a stream.
fn paren_group(
    tokens: &mut impl Iterator<Item = TokenTree>,
    what: &str,
) -> Result<TokenStream, syn::Error> {
    match tokens.next() {
        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis => {
            Ok(group.stream())
        }
        other => {
            let span = other.map_or_else(Span::call_site, |t| t.span());
            Err(syn::Error::new(
                span,
                format!("select! internal error: expected `({what})`"),
            ))
        }
    }
}

/// `(path) [a] [b]` becomes `path::Cons::new(a, path::Cons::new(b,
/// path::Nil))`: the branches' list, nested in one expansion (a
/// `macro_rules!` recursion per branch would add to the expansion depth of
/// a 64-branch `select!`).
pub(crate) fn cons(input: TokenStream) -> TokenStream {
    let mut tokens = input.into_iter();
    let path = match paren_group(&mut tokens, "path") {
        Ok(path) => path,
        Err(e) => return e.into_compile_error(),
    };
    let mut items = Vec::new();
    for token in tokens {
        match token {
            TokenTree::Group(group) if group.delimiter() == Delimiter::Bracket => {
                items.push(group.stream())
            }
            other => {
                return syn::Error::new(other.span(), "select! internal error: expected `[item]`")
                    .into_compile_error()
            }
        }
    }
    let mut list = quote!(#path::Nil);
    for item in items.into_iter().rev() {
        list = quote!(#path::Cons::new(#item, #list));
    }
    list
}

/// `(path) (list) _ _` becomes `path::Cons::head(path::Cons::tail(
/// path::Cons::tail(list)))`: the branch after as many as the `_`s, of a
/// pinned list.
pub(crate) fn nth(input: TokenStream) -> TokenStream {
    let mut tokens = input.into_iter();
    let parts = paren_group(&mut tokens, "path")
        .and_then(|path| Ok((path, paren_group(&mut tokens, "list")?)))
        .and_then(|(path, list)| Ok((path, list, count_underscores(tokens.collect())?)));
    let (path, list, skip) = match parts {
        Ok(parts) => parts,
        Err(e) => return e.into_compile_error(),
    };
    let mut at = list;
    for _ in 0..skip {
        at = quote!(#path::Cons::tail(#at));
    }
    quote!(#path::Cons::head(#at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean(pat: &str) -> String {
        clean_pattern_macro(pat.parse().unwrap()).to_string()
    }

    #[test]
    fn clean_pattern_removes_ref_and_mut() {
        assert_eq!(clean("mut x"), "x");
        assert_eq!(clean("ref mut x"), "x");
        assert_eq!(clean("Some((ref a, mut b))"), "Some ((a , b))");
        assert_eq!(clean("S { a: mut a, ref b, .. }"), "S { a : a , b , .. }");
        assert_eq!(clean("&mut (mut x @ 1..=3)"), "& (x @ 1 ..= 3)");
        assert_eq!(clean("Ok(mut v) | Err(mut v)"), "Ok (v) | Err (v)");
        assert_eq!(clean("[mut a, ..]"), "[a , ..]");
        assert_eq!(clean("not a pattern +"), "not a pattern +");
    }

    #[test]
    fn count_and_variant() {
        assert_eq!(count(TokenStream::new()).to_string(), "0");
        assert_eq!(count("_ _ _".parse().unwrap()).to_string(), "3");
        assert_eq!(
            variant("Out () (x)".parse().unwrap()).to_string(),
            "Out :: _0 (x)"
        );
        assert_eq!(
            variant("Out (_ _) (x)".parse().unwrap()).to_string(),
            "Out :: _2 (x)"
        );
    }

    #[test]
    fn output_enum() {
        let out = declare_output_enum("Out (_ _)".parse().unwrap()).to_string();
        assert_eq!(
            out,
            "enum Out < _0 , _1 > { _0 (_0) , _1 (_1) , Disabled , }"
        );
        let run = vec!["_"; 65].join(" ");
        let out = declare_output_enum(format!("Out ({run})").parse().unwrap()).to_string();
        assert!(out.contains("at most 64 branches"), "{out}");
    }
}
