import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import { queryClient } from './api/queries';
import { router } from './app/router';
import { startSessionKeeper } from './auth/session';
import { keepScrollRegionsFocusable } from './lib/scroll-regions';
import './styles/app.css';

startSessionKeeper();
keepScrollRegionsFocusable(document.getElementById('root')!);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
