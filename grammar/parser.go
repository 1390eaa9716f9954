package grammar

import (
	"strconv"
	"strings"

	"github.com/augur-dev/augur/diag"
)

// Limits on what Parse accepts. Inputs beyond them get a CodeTooLarge
// or CodeNestingDepth error.
const (
	MaxSize     = 64 << 10 // bytes of source
	MaxLiterals = 1024     // literals in the matrix
	MaxDepth    = 100      // parentheses around one atom
	// MaxVars caps the variables a property quantifies over: the work of
	// evaluating it grows as the size of their domains to their number
	// (20 nested quantifiers over two peers each took 15 s and 2.4 GB).
	MaxVars = 8
)

// maxErrors is the number of errors after which parsing stops.
const maxErrors = 10

// Parse parses a property. Positions in errors start at line 1,
// column 1.
func Parse(src string) (*Property, error) {
	return ParseAt(src, diag.Position{Line: 1, Column: 1})
}

// ParseAt parses a property whose source starts at position at in a
// larger file, such as a YAML scalar. Errors, and [Property.Position],
// report file positions: the first line of src starts at at.Column, the
// following lines at column 1. A Line or Column below 1 counts as 1.
//
// The error is an [ErrorList]. Parsing stops at the first syntax error
// but goes on after unbound and duplicate variables, to report them all.
func ParseAt(src string, at diag.Position) (prop *Property, err error) {
	at.Line = max(at.Line, 1)
	at.Column = max(at.Column, 1)
	p := &parser{
		prop:  &Property{src: src, base: at},
		sc:    scanner{src: src},
		bound: make(map[string]bool),
	}
	defer func() {
		if e := recover(); e != nil {
			if _, ok := e.(bailout); !ok {
				panic(e)
			}
		}
		p.errs.Sort()
		if err = p.errs.Err(); err != nil {
			prop = nil
		}
	}()
	if len(src) > MaxSize {
		p.fail(MaxSize, CodeTooLarge, "property longer than %d bytes", MaxSize)
	}
	p.next()
	p.parseProperty()
	return p.prop, nil
}

// bailout is the panic that ends parsing early; ParseAt recovers it.
type bailout struct{}

// parser holds the state of one parse.
type parser struct {
	prop *Property
	sc   scanner
	errs diag.ErrorList

	tok      token
	pos, end Pos // extent of tok
	prevEnd  Pos // end of the token before tok

	bound map[string]bool // variables bound so far
	nvars int             // variables quantified so far, repeats included
	depth int             // open parentheses
}

// next moves to the next token, failing on a lexical error.
func (p *parser) next() {
	p.prevEnd = p.end
	p.tok, p.pos, p.end = p.sc.scan()
	if p.tok == tokIllegal {
		p.fail(p.pos, p.sc.code, "%s", p.sc.msg)
	}
}

// text returns the source text of the current token.
func (p *parser) text() string { return p.sc.src[p.pos:p.end] }

// errorAt records an error and bails out once there are too many.
func (p *parser) errorAt(pos Pos, code diag.Code, format string, args ...any) {
	p.errs = append(p.errs, p.prop.Errorf(pos, code, format, args...))
	if len(p.errs) >= maxErrors {
		panic(bailout{})
	}
}

// fail records an error and stops parsing.
func (p *parser) fail(pos Pos, code diag.Code, format string, args ...any) {
	p.errs = append(p.errs, p.prop.Errorf(pos, code, format, args...))
	panic(bailout{})
}

// unexpected fails at the current token, saying what was expected.
func (p *parser) unexpected(want string) {
	found := tokEOF.String()
	if p.tok != tokEOF {
		found = strconv.Quote(p.text())
	}
	p.fail(p.pos, CodeUnexpected, "unexpected %s, expected %s", found, want)
}

// expect consumes a token of kind tok.
func (p *parser) expect(tok token) {
	if p.tok != tok {
		p.unexpected(tok.String())
	}
	p.next()
}

// parseProperty parses quantifier { quantifier } literal { "or" literal }.
func (p *parser) parseProperty() {
	for p.tok == tokForall || p.tok == tokExists {
		p.prop.Quants = append(p.prop.Quants, p.parseQuantifier())
	}
	if len(p.prop.Quants) == 0 {
		p.unexpected(`"forall" or "exists"`)
	}
	p.prop.Matrix = append(p.prop.Matrix, p.parseLiteral())
	for p.tok == tokOr {
		p.next()
		if len(p.prop.Matrix) == MaxLiterals {
			p.fail(p.pos, CodeTooLarge, "more than %d literals", MaxLiterals)
		}
		p.prop.Matrix = append(p.prop.Matrix, p.parseLiteral())
	}
	if p.tok != tokEOF {
		p.unexpected(`"or" or end of input`)
	}
}

// parseQuantifier parses ("forall" | "exists") vars "in" ("nodes" | path) ":".
func (p *parser) parseQuantifier() *Quantifier {
	q := &Quantifier{Kind: Forall, Span: Span{Start: p.pos}}
	if p.tok == tokExists {
		q.Kind = Exists
	}
	p.next()
	var varPos []Pos
	for {
		if p.tok != tokName || strings.Contains(p.text(), ".") {
			p.unexpected("variable name")
		}
		if p.nvars == MaxVars {
			p.fail(p.pos, CodeNestingDepth, "more than %d quantified variables (the work grows as the domain size to their number)", MaxVars)
		}
		p.nvars++
		q.Vars = append(q.Vars, p.text())
		varPos = append(varPos, p.pos)
		p.next()
		if p.tok != tokComma {
			break
		}
		p.next()
	}
	p.expect(tokIn)
	if p.tok == tokNodes {
		p.next()
	} else {
		q.Domain = p.parsePath()
		if len(q.Vars) > 1 {
			p.errorAt(varPos[1], CodeIterVars, "an iterator over %s binds one variable", q.Domain)
		}
	}
	q.Stop = p.prevEnd
	p.expect(tokColon)
	for i, v := range q.Vars {
		if p.bound[v] {
			p.errorAt(varPos[i], CodeDuplicate, "variable %s bound twice", v)
		}
		p.bound[v] = true
	}
	return q
}

// parseLiteral parses [ "not" ] atom.
func (p *parser) parseLiteral() *Literal {
	l := &Literal{Span: Span{Start: p.pos}}
	if p.tok == tokNot {
		l.Neg = true
		p.next()
	}
	l.Atom = p.parseParenAtom()
	l.Stop = p.prevEnd
	return l
}

// parseParenAtom parses an atom inside any number of parentheses.
func (p *parser) parseParenAtom() Atom {
	if p.tok != tokLparen {
		return p.parseAtom()
	}
	if p.depth == MaxDepth {
		p.fail(p.pos, CodeNestingDepth, "more than %d nested parentheses", MaxDepth)
	}
	p.depth++
	p.next()
	a := p.parseParenAtom()
	p.expect(tokRparen)
	p.depth--
	return a
}

// parseAtom parses an atom without parentheses around it.
func (p *parser) parseAtom() Atom {
	start := p.pos
	switch p.tok {
	case tokEmpty:
		p.next()
		args := p.parseArgs()
		p.checkArgs("empty", args, start)
		return &Empty{S: args[0], Span: Span{start, p.prevEnd}}
	case tokSet:
		p.next()
		args := p.parseArgs()
		p.checkArgs("set", args, start)
		return &IsSet{X: args[0], Span: Span{start, p.prevEnd}}
	case tokName:
		name, end := p.text(), p.end
		p.next()
		if p.tok == tokLparen {
			if strings.Contains(name, ".") {
				p.fail(start, CodeUnexpected, "predicate name %s contains a dot", name)
			}
			args := p.parseArgs()
			return &Call{Name: name, Args: args, Span: Span{start, p.prevEnd}}
		}
		return p.parseRelation(p.pathOf(name, start, end))
	}
	return p.parseRelation(p.parseOperand())
}

// checkArgs checks that the built-in predicate name has one argument.
func (p *parser) checkArgs(name string, args []Operand, pos Pos) {
	if len(args) != 1 {
		p.fail(pos, CodeUnexpected, "%s takes one argument, not %d", name, len(args))
	}
}

// parseRelation parses what follows the first operand x of an atom.
func (p *parser) parseRelation(x Operand) Atom {
	var op Op
	swap := false
	switch p.tok {
	case tokEq:
		op = OpEq
	case tokNe:
		op = OpNe
	case tokLt:
		op = OpLt
	case tokLe:
		op = OpLe
	case tokGt:
		op, swap = OpLt, true
	case tokGe:
		op, swap = OpLe, true
	case tokIn:
		p.next()
		s := p.parseOperand()
		return &In{X: x, S: s, Span: Span{x.Pos(), s.End()}}
	case tokSubset:
		p.next()
		y := p.parseOperand()
		return &Subset{X: x, Y: y, Span: Span{x.Pos(), y.End()}}
	default:
		return &Truth{X: x, Span: Span{x.Pos(), x.End()}}
	}
	p.next()
	y := p.parseOperand()
	c := &Compare{Op: op, X: x, Y: y, Span: Span{x.Pos(), y.End()}}
	if swap {
		c.X, c.Y = y, x
	}
	return c
}

// parseArgs parses "(" [ operand { "," operand } ] ")".
func (p *parser) parseArgs() []Operand {
	p.expect(tokLparen)
	var args []Operand
	if p.tok != tokRparen {
		args = append(args, p.parseOperand())
		for p.tok == tokComma {
			p.next()
			args = append(args, p.parseOperand())
		}
	}
	p.expect(tokRparen)
	return args
}

// parseOperand parses a path or a constant.
func (p *parser) parseOperand() Operand {
	pos, end := p.pos, p.end
	c := &Const{Span: Span{pos, end}}
	switch p.tok {
	case tokName:
		p.next()
		return p.pathOf(p.sc.src[pos:end], pos, end)
	case tokString:
		s, err := strconv.Unquote(p.text())
		if err != nil {
			p.fail(pos, CodeBadString, "invalid string literal %s", p.text())
		}
		c.Kind, c.Str = ConstString, s
	case tokInt:
		p.parseInt(c)
	case tokFloat:
		f, err := strconv.ParseFloat(p.text(), 64)
		if err != nil {
			p.fail(pos, CodeBadNumber, "float %s out of range", p.text())
		}
		c.Kind, c.Float = ConstFloat, f
	case tokTrue, tokFalse:
		c.Kind, c.Bool = ConstBool, p.tok == tokTrue
	default:
		p.unexpected("operand")
	}
	p.next()
	return c
}

// parseInt sets c to the integer of the current token: an int64, or a
// uint64 above math.MaxInt64.
func (p *parser) parseInt(c *Const) {
	text := p.text()
	if i, err := strconv.ParseInt(text, 10, 64); err == nil {
		c.Kind, c.Int = ConstInt, i
		return
	}
	if u, err := strconv.ParseUint(text, 10, 64); err == nil {
		c.Kind, c.Uint = ConstUint, u
		return
	}
	p.fail(c.Start, CodeBadNumber, "integer %s out of range", text)
}

// parsePath parses a path.
func (p *parser) parsePath() *Path {
	if p.tok != tokName {
		p.unexpected("path")
	}
	pos, end := p.pos, p.end
	p.next()
	return p.pathOf(p.sc.src[pos:end], pos, end)
}

// pathOf returns the path spelled name at [pos, end) and checks that its
// variable is bound.
func (p *parser) pathOf(name string, pos, end Pos) *Path {
	parts := strings.Split(name, ".")
	x := &Path{Var: parts[0], Fields: parts[1:], Span: Span{pos, end}}
	if len(x.Fields) == 0 {
		x.Fields = nil
	}
	if !p.bound[x.Var] {
		p.errorAt(pos, CodeUnbound, "unbound variable %s", x.Var)
	}
	return x
}
