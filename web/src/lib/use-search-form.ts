import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';

/** A search box's text and the submit handler that opens the search page for it. */
export function useSearchForm() {
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void navigate(`/search?q=${encodeURIComponent(text.trim())}`);
  };
  return { text, setText, submit };
}
